"""`python -m chat [chainlit run options]`: prepare the data folder and the login secret, then
start Chainlit on chat/app.py from the repository root."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from graph.settings import Settings

from .storage import chat_db_path, create_schema, ensure_auth_secret


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    os.chdir(root)  # Chainlit reads .chainlit/, public/ and chainlit.md from the working directory
    settings = Settings()
    create_schema(chat_db_path(settings.data_dir))
    ensure_auth_secret(settings.data_dir)
    args = [sys.executable, "-m", "chainlit", "run", "chat/app.py", *sys.argv[1:]]
    os.execv(sys.executable, args)


if __name__ == "__main__":
    main()
