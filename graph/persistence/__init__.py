"""Where the desk keeps what outlives a process: the backend choice (SQLite or Postgres), the
checkpointer, the store and the run leases."""
