"""The graph's nodes, each made by a factory over the persona table."""
