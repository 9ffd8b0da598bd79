"""Market data: the vendor interface, the synthetic demo vendor, Yahoo Finance (with FRED's macro series), and a
cache."""
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
    from .fred import FredClient
    from .yfinance_vendor import YFinanceVendor
    cache = private_file(settings.data_dir / "market_cache.sqlite")  # owner-only from creation
    key = settings.fred_api_key.get_secret_value().strip() if settings.fred_api_key else ""
    # Macro series come from FRED only with a key; without one the Macro Analyst says there is no macro data.
    fred = FredClient(key) if key else None
    return CachedVendor(YFinanceVendor(fred=fred), cache, ttl_seconds=settings.cache_ttl_s,
                        timeout_s=settings.vendor_timeout_s)
