"""The record of a deliberation: the state read into words, the figure check, what an edit
changed."""
