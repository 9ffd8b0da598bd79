"""Notes typed during a run: the inbox in the store, and who a note is for."""
