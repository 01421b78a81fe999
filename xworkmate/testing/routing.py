"""A model router that gives up fast, so a scripted failure shows within the test's time (issue 21)."""

from __future__ import annotations

from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts

FAST_RETRY = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02, max_retry_after=0.1)
FAST_TIMEOUTS = Timeouts(connect=2.0, read=5.0, write=2.0, pool=2.0)


def fast_router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(providers, retry=FAST_RETRY, timeouts=FAST_TIMEOUTS)
