"""A notice posted to the user's webhook: JSON, signed, retried with back-off, the secret never logged.

The body is the notice as JSON; `X-Desk-Signature: sha256=<hex>` is the HMAC-SHA256 of the body under the
shared secret (the receiver recomputes it, as GitHub's and Stripe's webhooks do), so the secret itself never
travels. A 2xx is taken; a 5xx, a 429, a refused connection or a hang (each try is bounded by `timeout_s`)
is tried again with exponential back-off (tenacity, a maintained retry library, rather than a loop of
sleeps); a 4xx other than 429 is the receiver refusing this body, and trying again would not change it. Logs
name the receiver's host only: a webhook URL often carries a token in its path or query.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

log = logging.getLogger(__name__)
_PRIVATE_URLS: set[str] = set()  # webhook URLs this process posts to: httpx's own log line shows host only


class _HostOnly(logging.Filter):
    """httpx logs every request's full URL at INFO; a webhook's path or query is often its token."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(str(a) in _PRIVATE_URLS for a in record.args):
            record.args = tuple(f"{host_of(str(a))}/…" if str(a) in _PRIVATE_URLS else a for a in record.args)
        return True


logging.getLogger("httpx").addFilter(_HostOnly())

ATTEMPTS = 4
SIGNATURE = "X-Desk-Signature"


class _Retry(Exception):
    """A failure worth another try."""


@dataclass(frozen=True)
class Posted:
    ok: bool
    attempts: int
    why: str = ""  # in words, when not ok; never holds the URL's path or the secret


def signature(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def host_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.hostname or "the webhook"


async def post(url: str, payload: dict[str, Any], *, secret: str = "", timeout_s: float = 10.0,
               attempts: int = ATTEMPTS, first_wait_s: float = 1.0, client: httpx.AsyncClient | None = None) -> Posted:
    """Post `payload`; retried on what may pass (5xx, 429, network, timeout). Never raises."""
    body = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "trading-desk"}
    if secret:
        headers[SIGNATURE] = signature(body, secret)
    host = host_of(url)
    _PRIVATE_URLS.add(str(httpx.URL(url)))
    tries = 0
    own = client is None
    http = client or httpx.AsyncClient(timeout=timeout_s, follow_redirects=False)
    try:
        async for attempt in AsyncRetrying(stop=stop_after_attempt(attempts),
                                           wait=wait_exponential(multiplier=first_wait_s, max=first_wait_s * 16),
                                           retry=retry_if_exception(lambda e: isinstance(e, _Retry)), reraise=True):
            with attempt:
                tries += 1
                try:
                    answer = await http.post(url, content=body, headers=headers, timeout=timeout_s)
                except httpx.TimeoutException:
                    log.warning("webhook to %s: no answer within %.0f s (try %d)", host, timeout_s, tries)
                    raise _Retry(f"no answer within {timeout_s:.0f} s") from None
                except httpx.HTTPError as exc:
                    log.warning("webhook to %s: %s (try %d)", host, type(exc).__name__, tries)
                    raise _Retry(f"could not reach {host} ({type(exc).__name__})") from None
                if answer.status_code == 429 or answer.status_code >= 500:
                    log.warning("webhook to %s: HTTP %d (try %d)", host, answer.status_code, tries)
                    raise _Retry(f"{host} answered HTTP {answer.status_code}")
                if answer.status_code >= 300:
                    return Posted(False, tries, f"{host} refused the notice (HTTP {answer.status_code})")
        return Posted(True, tries)
    except _Retry as exc:
        return Posted(False, tries, f"{exc} after {tries} tries")
    finally:
        if own:
            await http.aclose()
