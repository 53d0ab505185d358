"""docs/webhooks.md's verification snippets run against signatures the delivery code makes: the
Python one (exec'd), the TypeScript one (with the client's helper, through tsx)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from baccarat_api.service.webhooks import sign
from baccarat_dev.template import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
SECRET = "whsec_" + "A" * 43
BODY = json.dumps({"event_id": "tbl_0000000000000000:7", "seq": 7}).encode()


def block(lang: str) -> str:
    (code,) = re.findall(rf"^```{lang}\n(.*?)^```$", DOC, re.MULTILINE | re.DOTALL)
    return code


def test_the_python_snippet_verifies_what_we_sign() -> None:
    scope: dict[str, object] = {}
    exec(block("python"), scope)  # the documented snippet itself
    verify = scope["verify"]
    header = sign(SECRET, int(time.time()), BODY)
    assert verify(SECRET, header, BODY)  # type: ignore[operator]
    assert not verify(SECRET + "x", header, BODY)  # type: ignore[operator]
    assert not verify(SECRET, header, BODY + b" ")  # type: ignore[operator]
    assert not verify(SECRET, sign(SECRET, int(time.time()) - 3600, BODY), BODY)  # type: ignore[operator]


def test_the_typescript_snippet_verifies_what_we_sign(tmp_path: Path) -> None:
    client = REPO_ROOT / "clients" / "typescript"
    tsx = client / "node_modules" / ".bin" / "tsx"
    if not tsx.exists() or shutil.which("node") is None:
        pytest.skip("the TypeScript client's packages are not installed (make test installs them)")
    header = sign(SECRET, int(time.time()), BODY)
    script = client / f".doc-snippet-{tmp_path.name}.ts"
    script.write_text(
        block("ts").replace("'@baccarat/client'", "'./src/index.ts'")
        + f"\nconsole.log(receive({json.dumps(SECRET)}, {json.dumps(header)},"
        f" Buffer.from({json.dumps(BODY.decode())})));\n"
        + f"try {{ receive('wrong', {json.dumps(header)}, Buffer.from('x')); }}"
        " catch (e) { console.log(String(e)); }\n",
        encoding="utf-8",
    )
    try:
        out = subprocess.run(
            [str(tsx), str(script)], cwd=client, capture_output=True, text=True, timeout=120
        )
    finally:
        script.unlink()
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tbl_0000000000000000:7"
    assert lines[1].startswith("Error: refuse with 400:")
