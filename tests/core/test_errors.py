"""explain(): failures become advice, matched by exception type through wrapping.

The exceptions are the real ones: the openai SDK's, the langchain-openai subclasses that
ChatOpenAI actually raises (OpenAITimeoutError, OpenAIRateLimitError, ...), httpx timeouts,
and, at the end, what a real ChatOpenAI raises against loopback servers that fail.
"""
from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading

import httpx
import openai
import pytest
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models import base as lc_openai
from langchain_openai.chat_models._client_utils import StreamChunkTimeoutError

from graph.core.errors import DeskError, explain
from tests.support.ports import free_port

TIMEOUT = "The model did not answer in time."
AUTH = "The model server rejected the API key. Check OPENAI_API_KEY."
RATE = "The model provider is rate-limiting us. Wait a minute and try again."
CONNECTION = "Cannot reach the model server. Check OPENAI_BASE_URL and that the server is running."
NOT_FOUND = "The model server does not know the configured model"
NO_TOOLS = "The configured model cannot call tools"

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def response(status: int) -> httpx.Response:
    return httpx.Response(status, request=REQUEST)


def status_error(cls, status: int, message: str = "Error"):
    return cls(message, response=response(status), body=None)


CASES = [
    # the SDK's own types
    (lambda: openai.APITimeoutError(request=REQUEST), TIMEOUT),
    (lambda: status_error(openai.AuthenticationError, 401, "Incorrect API key provided"), AUTH),
    (lambda: status_error(openai.RateLimitError, 429, "Rate limit reached"), RATE),
    (lambda: openai.APIConnectionError(request=REQUEST), CONNECTION),
    (lambda: status_error(openai.NotFoundError, 404, "The model `gpt-9` does not exist"), NOT_FOUND),
    # what langchain-openai 1.7 raises in their place (their names matched nothing before)
    (lambda: lc_openai.OpenAITimeoutError(REQUEST), TIMEOUT),
    (lambda: status_error(lc_openai.OpenAIAuthenticationError, 401), AUTH),
    (lambda: status_error(lc_openai.OpenAIRateLimitError, 429), RATE),
    (lambda: lc_openai.OpenAIConnectionError(message="Connection error.", request=REQUEST), CONNECTION),
    (lambda: status_error(lc_openai.OpenAIModelNotFoundError, 404, "model 'llama9' not found"), NOT_FOUND),
    # timeouts from below the SDK, and asyncio's (the same class as the builtin on 3.11+)
    (lambda: httpx.ReadTimeout("timed out", request=REQUEST), TIMEOUT),
    (lambda: httpx.ConnectTimeout("timed out", request=REQUEST), TIMEOUT),
    (lambda: httpx.PoolTimeout("timed out", request=REQUEST), TIMEOUT),
    (lambda: TimeoutError(), TIMEOUT),
    (lambda: TimeoutError(), TIMEOUT),
    (lambda: StreamChunkTimeoutError(5.0, model_name="m"), TIMEOUT),
    # by text, as before
    (lambda: status_error(lc_openai.OpenAIInvalidRequestError, 400,
                          "registry.ollama.ai/library/gemma does not support tools"), NO_TOOLS),
    (lambda: ValueError("model 'x' not found, try pulling it first"), NOT_FOUND),
]


@pytest.mark.parametrize("make, advice", CASES, ids=[type(make()).__name__ for make, _ in CASES])
def test_each_failure_gets_its_advice(make, advice):
    exc = make()
    assert advice in explain(exc), type(exc).__mro__
    assert not explain(exc).startswith("Something went wrong")


def test_httpx2_timeouts_too_when_the_sdk_is_built_on_it():
    httpx2 = pytest.importorskip("httpx2")
    assert explain(httpx2.ReadTimeout("timed out")).startswith(TIMEOUT)


def test_a_timeout_is_a_timeout_although_the_sdk_makes_it_a_connection_error():
    assert issubclass(openai.APITimeoutError, openai.APIConnectionError)
    assert explain(lc_openai.OpenAITimeoutError(REQUEST)).startswith(TIMEOUT)


def test_the_advice_text_is_unchanged():
    assert explain(TimeoutError()) == ("The model did not answer in time. Try again; if it keeps happening, raise "
                                       "DESK_REQUEST_TIMEOUT or use a faster model.")
    exc = status_error(openai.NotFoundError, 404, "model 'llama9' not found")
    assert explain(exc) == ("The model server does not know the configured model (model 'llama9' not found). "
                            "Check DESK_QUICK_MODEL / DESK_DEEP_MODEL.")


def raise_from(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        raise outer from inner
    except BaseException as e:
        return e


def raise_while_handling(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException:
            raise outer  # noqa: B904 - the point: an error raised while handling another (__context__ only)
    except BaseException as e:
        return e


def test_the_cause_is_found_through_wrapping():
    rate = status_error(openai.RateLimitError, 429)
    assert explain(raise_from(RuntimeError("node failed"), rate)) == RATE
    assert explain(raise_while_handling(KeyError("x"), openai.APIConnectionError(request=REQUEST))) == CONNECTION
    timeout = httpx.ReadTimeout("t", request=REQUEST)
    deep = raise_from(RuntimeError("graph"), raise_from(ValueError("runnable"), timeout))
    assert explain(deep).startswith(TIMEOUT)


def test_the_closest_cause_wins_and_desk_errors_speak_for_themselves():
    # langchain-openai raises its timeout *from* the SDK's; either way it is a timeout.
    sdk = openai.APITimeoutError(request=REQUEST)
    assert explain(raise_from(lc_openai.OpenAITimeoutError(REQUEST), sdk)).startswith(TIMEOUT)
    assert explain(DeskError("Market Analyst: already explained")) == "Market Analyst: already explained"
    assert explain(raise_from(RuntimeError("wrapped"), DeskError("said once"))) == "said once"


def test_raise_from_none_hides_the_context_and_unknown_failures_name_themselves():
    try:
        try:
            raise openai.APIConnectionError(request=REQUEST)
        except openai.APIError:
            raise ValueError("bad config") from None
    except ValueError as e:
        hidden = e
    assert explain(hidden) == "Something went wrong: ValueError: bad config"
    assert explain(RuntimeError()) == "Something went wrong: RuntimeError: RuntimeError"


def test_explaining_needs_no_openai_and_imports_none():
    code = ("import sys; sys.modules['openai'] = sys.modules['httpx'] = sys.modules['httpx2'] = None\n"
            "from graph.core.errors import explain\n"
            "assert explain(TimeoutError()).startswith('The model did not answer in time'), explain(TimeoutError())\n"
            "assert explain(ValueError('x')) == 'Something went wrong: ValueError: x'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# ---------------------------------------------------------------- through the real stack

class SilentServer:
    """Accepts connections on loopback and never answers; closes everything on exit."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:  # the accept timeout, or the socket closed under us
                continue
            self.conns.append(conn)  # ...and sleep on it

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=5)
        for c in self.conns:
            c.close()
        self.sock.close()


def chat(port: int, timeout: float, streaming: bool) -> ChatOpenAI:
    # As graph's model registry configures it, pointed at loopback.
    return ChatOpenAI(model="quick-x", api_key="not-needed", base_url=f"http://127.0.0.1:{port}/v1",
                      timeout=timeout, max_retries=0, streaming=streaming, stream_usage=True)


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_closed_port_gets_the_cannot_reach_advice(streaming):
    model = chat(free_port(), timeout=5, streaming=streaming)  # nobody listens there any more
    with pytest.raises(Exception) as info:
        await model.ainvoke("hello")
    assert explain(info.value) == CONNECTION, repr(info.value)


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_server_that_never_answers_gets_the_timeout_advice(streaming):
    with SilentServer() as server:
        model = chat(server.port, timeout=0.5, streaming=streaming)
        with pytest.raises(Exception) as info:
            await asyncio.wait_for(model.ainvoke("hello"), 10)
    assert explain(info.value).startswith(TIMEOUT), repr(info.value)
    assert server.conns, "the client never connected"
