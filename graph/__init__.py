"""The trading desk as a LangGraph graph, usable headless. Its public face is `graph/__init__.pyi`:
the names there are what the chat, the benchmarks and LangGraph Server import (`from graph import
DeskRuntime`). They load on first use (lazy_loader reads the stub), so importing one room of
graph/ — the request parser, the error wording — does not import the models and the runtime."""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
