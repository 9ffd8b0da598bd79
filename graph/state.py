"""Checkpoints written before the state moved to graph/core/state.py name this module for the
desk's state types: it keeps those threads loadable. Nothing of the desk imports it."""
from graph.core.state import Debate, FinalDecision, Intervention, Turn

__all__ = ["Debate", "FinalDecision", "Intervention", "Turn"]
