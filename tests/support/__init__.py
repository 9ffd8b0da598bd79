"""What the tests and the benchmarks share: fakes, a scripted model, a recorded emitter, the chat
server and a socket client. Not shipped: the wheel holds only graph, chat and prompts."""
