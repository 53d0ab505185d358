"""scripts/slim_build.py (``make build``): bytecode for every module, compiled so Lambda uses it
without checking source timestamps; botocore models only for the services the code uses;
pydantic's bundled v1 API left out (nothing shipped may import it); nothing else touched."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def slim_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slim_build", ROOT / "scripts" / "slim_build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_build(tmp: Path) -> Path:
    build = tmp / "build"
    (build / "template.yaml").parent.mkdir(parents=True)
    (build / "template.yaml").write_text("Resources: {}\n")
    data = build / "DependenciesLayer" / "python" / "botocore" / "data"
    for service in ("dynamodb", "kms", "sts", "xray", "s3", "ec2"):
        (data / service / "2020-01-01").mkdir(parents=True)
        (data / service / "2020-01-01" / "service-2.json.gz").write_bytes(b"model")
    (data / "endpoints.json").write_text("{}")
    (build / "DependenciesLayer" / "python" / "botocore" / "__init__.py").write_text("X = 1\n")
    pydantic = build / "DependenciesLayer" / "python" / "pydantic"
    (pydantic / "v1").mkdir(parents=True)
    (pydantic / "v1" / "__init__.py").write_text("V1 = 1\n")
    (pydantic / "__init__.py").write_text("V2 = 2\n")
    (build / "SharedLayer" / "python" / "pkg").mkdir(parents=True)
    (build / "SharedLayer" / "python" / "pkg" / "__init__.py").write_text("Y = 2\n")
    stale = build / "SharedLayer" / "python" / "pkg" / "__pycache__"
    stale.mkdir()
    (stale / "old.cpython-311.pyc").write_bytes(b"stale")
    (build / "SomeFunction").mkdir()
    (build / "SomeFunction" / "app.py").write_text("handler = None\n")
    return build


def test_services_used_are_found_in_the_code() -> None:
    used = slim_build().services_used()
    assert {"dynamodb", "kms", "sts", "xray"} <= used
    assert "s3" not in used and "ec2" not in used


def test_slim_compiles_everything_and_keeps_only_the_models_in_use(tmp_path: Path) -> None:
    build = fake_build(tmp_path)
    slim_build().slim(build)
    data = build / "DependenciesLayer" / "python" / "botocore" / "data"
    assert sorted(p.name for p in data.iterdir() if p.is_dir()) == [
        "dynamodb",
        "kms",
        "sts",
        "xray",
    ]
    assert (data / "endpoints.json").is_file()
    pydantic = build / "DependenciesLayer" / "python" / "pydantic"
    assert not (pydantic / "v1").exists()
    assert (pydantic / "__init__.py").read_text() == "V2 = 2\n"
    sources = list(build.rglob("*.py"))
    assert len(sources) == 4
    for source in sources:
        pycs = list((source.parent / "__pycache__").glob(f"{source.stem}.cpython-*.pyc"))
        assert len(pycs) == 1, source
        flags = struct.unpack("<I", pycs[0].read_bytes()[4:8])[0]
        assert flags == 0b01  # hash-based, source never checked (PEP 552 unchecked-hash)
    assert not list(build.rglob("old.cpython-311.pyc"))  # stale bytecode is gone
    assert (build / "SomeFunction" / "app.py").read_text() == "handler = None\n"


def test_slim_refuses_what_is_not_a_build(tmp_path: Path) -> None:
    assert slim_build().main([str(tmp_path)]) == 2


def test_no_shipped_code_imports_pydantic_v1_and_an_import_of_it_is_found(tmp_path: Path) -> None:
    module = slim_build()
    assert module.uses_pydantic_v1() == []  # the shipped packages and functions/
    for n, line in enumerate(
        [
            "from pydantic import v1",
            "import pydantic.v1 as legacy",
            "from pydantic import (\n    BaseModel,\n    v1,\n)",
            "from pydantic.v1 import BaseModel",
        ]
    ):
        (tmp_path / f"m{n}.py").write_text(line + "\n")
    (tmp_path / "fine.py").write_text("from pydantic import BaseModel\nV10 = 'pydantic.v10'\n")
    found = {p.name for p in module.uses_pydantic_v1((tmp_path,))}
    assert found == {"m0.py", "m1.py", "m2.py", "m3.py"}
