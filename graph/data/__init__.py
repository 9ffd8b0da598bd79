"""Market data: the vendor interface, the synthetic demo vendor, Yahoo Finance, and a cache."""
from __future__ import annotations

from ..core.private import private_file
from ..core.settings import Settings
from .vendor import Vendor


def make_vendor(settings: Settings) -> Vendor:
    """The vendor the settings ask for. Live data is cached in SQLite under DESK_DATA_DIR;
    a live failure says "no data", it never falls back to synthetic numbers."""
    if settings.vendor_name == "synthetic":
        from .synthetic import SyntheticVendor
        synthetic = SyntheticVendor()
        synthetic.timeout_s = settings.vendor_timeout_s
        return synthetic
    from .cache import CachedVendor
    from .yfinance_vendor import YFinanceVendor
    cache = private_file(settings.data_dir / "market_cache.sqlite")  # owner-only from creation
    return CachedVendor(YFinanceVendor(), cache, ttl_seconds=settings.cache_ttl_s,
                        timeout_s=settings.vendor_timeout_s)
