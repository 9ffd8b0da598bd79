"""Market data: the vendor interface, the synthetic demo vendor, Yahoo Finance, and a cache."""
from __future__ import annotations

from ..settings import Settings
from .vendor import Vendor


def make_vendor(settings: Settings) -> Vendor:
    """The vendor the settings ask for. Live data is cached in SQLite under DESK_DATA_DIR;
    a live failure says "no data", it never falls back to synthetic numbers."""
    if settings.vendor_name == "synthetic":
        from .synthetic import SyntheticVendor
        return SyntheticVendor()
    from .cache import CachedVendor
    from .yfinance_vendor import YFinanceVendor
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return CachedVendor(YFinanceVendor(), settings.data_dir / "market_cache.sqlite", ttl_seconds=settings.cache_ttl_s)
