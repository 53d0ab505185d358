"""``python -m baccarat_dev.openapi`` writes docs/openapi.json from the app (every router);
``--check`` exits 1 when the committed file differs (the tests run the same comparison)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from baccarat_dev.template import REPO_ROOT

OPENAPI_JSON = REPO_ROOT / "docs" / "openapi.json"


def document() -> dict[str, Any]:
    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers

    return create_app(*all_routers()).openapi()


def render() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(OPENAPI_JSON)
    text = render()
    if "--check" in args:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            print(f"{path} is stale: run make regen", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
