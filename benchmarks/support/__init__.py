"""What the benchmarks share among themselves and with the tests: the chat server and a socket
client that talks to it as a browser does, child processes (their environment, port and end), a
throwaway PostgreSQL cluster, a llama.cpp server, readings of this machine's /proc, and many users
logging in at once.

It imports nothing from the benchmarks around it and nothing from tests/: the tests import it
(tests/support re-exports its modules under their old names), never the other way round."""
