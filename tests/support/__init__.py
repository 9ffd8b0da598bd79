"""The tests' own helpers: fakes, a scripted model, a recorded emitter. What the benchmarks use too
(the chat server, the socket client, child processes, Postgres and llama.cpp servers) lives in
benchmarks/support and is re-exported here under its old module names. Not shipped: the wheel
holds only graph, chat and prompts."""
