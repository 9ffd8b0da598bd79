"""The desk's vocabulary: settings, personas, state, the run plan, context, events, errors,
usage and prompts. No I/O beyond reading prompt files; imports nothing else of graph/."""

from graph.core import clock  # the public face (graph/__init__.pyi) names the module itself

__all__ = ["clock"]
