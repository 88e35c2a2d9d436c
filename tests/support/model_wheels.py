"""Small model-part wheels built as real zip files, for the local-model assembler's tests."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

from fcbench.local import LocalModel, ModelPackage


def write_part_wheel(folder: Path, package: ModelPackage, parts: list[bytes]) -> Path:
    """A wheel of ``package`` whose ``<module>/data/partNN.bin`` members hold ``parts``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{package.module}-{package.version}-py3-none-any.whl"
    info = f"{package.module}-{package.version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{package.module}/__init__.py", "")
        for number, data in enumerate(parts, start=1):
            wheel.writestr(f"{package.module}/data/part{number:02d}.bin", data)
        wheel.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package.name}\nVersion: {package.version}\n"
        )
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")
    return path


def tiny_model(
    folder: Path, name: str = "tiny", *, parts_per_package: int = 2, corrupt: bool = False
) -> LocalModel:
    """A catalogue entry whose file is made of three wheels' parts, the wheels written to ``folder``."""
    packages = [ModelPackage(name=f"fcbench-test-{name}-part{i}", version="0.1.0") for i in (1, 2, 3)]
    whole = b""
    for package in packages:
        parts = [f"{package.name}:{n}:".encode() * 1000 for n in range(parts_per_package)]
        whole += b"".join(parts)
        write_part_wheel(folder, package, parts)
    digest = hashlib.sha256(whole + (b"x" if corrupt else b"")).hexdigest()
    return LocalModel(
        name=name,
        title="a test model",
        file=f"{name}.gguf",
        sha256=digest,
        size_bytes=len(whole),
        packages=tuple(packages),
        chat_template="none",
    )
