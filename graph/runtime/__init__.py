"""Running the desk: the runtime that composes it, a turn of the chat or the CLI, posting notes,
time travel."""
