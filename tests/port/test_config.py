"""Project settings: rocport.toml, include/exclude globs, compile_commands.json, --rocm auto."""

from __future__ import annotations

import fnmatch
import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocport.errors import InputError
from rocport.port.api import port_tree, resolve_options
from rocport.port.config import (
    BuildFiles,
    PathFilter,
    detect_rocm_release,
    find_config,
    load_config,
    read_compile_commands,
)
from rocport.port.mapping import load_mapping
from rocport.port.model import FileStatus

USES = "void f() {{ {call}; cudaFree(0); }}\n"


@cache
def pinned_mapping():
    """The shipped mapping, with the names these tests rely on pinned as a rocport.toml would."""
    return load_mapping(rocm="6.4", extra={"cudaGraphExecNodeSetParams": None})


@pytest.mark.parametrize(
    ("include", "exclude", "path", "selected"),
    [
        ((), (), "a/b/c.cu", True),
        ((), ("third_party",), "third_party/x/y.cu", False),
        ((), ("third_party",), "src/third_party/y.cu", False),  # no "/": a name anywhere
        ((), ("src/third_party",), "third_party/y.cu", True),  # with "/": anchored at the root
        ((), ("*.cuh",), "deep/inside/k.cuh", False),
        ((), ("**/gen_*.cu",), "gen_1.cu", False),
        ((), ("**/gen_*.cu",), "a/b/gen_1.cu", False),
        ((), ("a/*.cu",), "a/b/k.cu", True),  # "*" stays inside one folder
        ((), ("a/**/*.cu",), "a/b/k.cu", False),
        (("src/**",), (), "src/k.cu", True),
        (("src/**",), (), "tools/k.cu", False),
        (("src",), ("src/old",), "src/old/k.cu", False),  # exclusion wins
        (("k[0-9].cu",), (), "x/k7.cu", True),
        (("k[!0-9].cu",), (), "x/k7.cu", False),
        (("k?.cu",), (), "k12.cu", False),
        (("*[!a].",), (), "deep/er/.", False),  # a negated class does not match "/"
    ],
)
def test_path_filter(include, exclude, path, selected) -> None:
    assert PathFilter(include, exclude).selects(path) is selected


_NAME = st.text(alphabet="ab.-_^!", min_size=1, max_size=8)
_GLOB = st.lists(
    st.sampled_from(["a", "b", ".", "*", "?", "[ab]", "[!a]", "^"]), min_size=1, max_size=6
)


@given(name=_NAME, parts=_GLOB)
def test_globs_on_names_agree_with_fnmatch(name: str, parts: list[str]) -> None:
    pattern = "".join(parts)
    assert PathFilter([pattern]).selects(name) is fnmatch.fnmatchcase(name, pattern)
    # a pattern without "/" matches the file or any folder above it
    deep = any(fnmatch.fnmatchcase(part, pattern) for part in ("deep", "er", name))
    assert PathFilter([pattern]).selects(f"deep/er/{name}") is deep


def test_config_file_names_and_globs(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    (src / "third_party").mkdir(parents=True)
    (src / "rocport.toml").write_text(
        'exclude = ["third_party"]\nlaunch = "ggl"\n\n[names]\ninitCuda = "initHip"\n'
    )
    (src / "main.cu").write_text(USES.format(call="initCuda()"))
    (src / "third_party" / "lib.cu").write_text(USES.format(call="initCuda()"))
    out = tmp_path / "out"
    report = port_tree(src, out, mapping=pinned_mapping())
    files = {f.path: f for f in report.files}
    assert "initHip(); hipFree(0);" in (out / "main.cu").read_text()
    assert files["third_party/lib.cu"].status is FileStatus.EXCLUDED
    assert (out / "third_party" / "lib.cu").read_text() == USES.format(call="initCuda()")
    assert report.options.launch == "ggl"
    assert dict(report.options.extra_names) == {"initCuda": "initHip"}


def test_explicit_map_file_and_command_line_globs(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "a.cu").write_text(USES.format(call="setupCuda()"))
    (src / "b.cu").write_text(USES.format(call="setupCuda()"))
    mapping_file = tmp_path / "names.toml"
    mapping_file.write_text('[names]\nsetupCuda = "setupHip"\n')
    out = tmp_path / "out"
    report = port_tree(src, out, config=mapping_file, exclude=["b.cu"], mapping=pinned_mapping())
    assert "setupHip()" in (out / "a.cu").read_text()
    assert {f.path: f.status for f in report.files}["b.cu"] is FileStatus.EXCLUDED


def test_command_line_options_win_over_the_config(tmp_path: Path) -> None:
    (tmp_path / "rocport.toml").write_text('blas = "rocblas"\nrocm = "5.2"\n')
    config = find_config(tmp_path)
    assert resolve_options(config).blas == "rocblas"
    options = resolve_options(config, blas="hipblas", rocm="6.4")
    assert (options.blas, options.rocm) == ("hipblas", "6.4")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("include = [", "invalid TOML"),
        ("colour = 1", "unknown key 'colour'"),
        ("[names]\ninitCuda = 3", "must be C identifiers"),
        ('[names]\n"init-cuda" = "initHip"', "must be C identifiers"),
        ("names = 1", "must be a table"),
        ("exclude = [1]", "list of glob strings"),
        ('blas = "mkl"', "'blas' must be one of hipblas, rocblas"),
    ],
)
def test_bad_config_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rocport.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as exc:
        load_config(path)
    assert "\n" not in str(exc.value)
    assert str(path) in str(exc.value)


def test_missing_map_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        find_config(tmp_path, tmp_path / "nope.toml")


def _build_tree(root: Path) -> Path:
    """A project whose build compiles app/main.cu with -Iinclude; tools/ is not in the build."""
    (root / "app").mkdir(parents=True)
    (root / "include" / "lib").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "app" / "main.cu").write_text(
        '#include "local.cuh"\n#include <lib/api.h>\n// #include "commented.h"\n'
        + USES.format(call="0")
    )
    (root / "app" / "local.cuh").write_text('#include "lib/deep.h"\n' + USES.format(call="1"))
    (root / "include" / "lib" / "api.h").write_text(USES.format(call="2"))
    (root / "include" / "lib" / "deep.h").write_text(USES.format(call="3"))
    (root / "include" / "lib" / "unused.h").write_text(USES.format(call="4"))
    (root / "app" / "commented.h").write_text(USES.format(call="5"))
    (root / "tools" / "gen.cu").write_text(USES.format(call="6"))
    return root


def test_compile_commands_select_the_build_and_its_headers(tmp_path: Path) -> None:
    src = _build_tree(tmp_path / "proj")
    build = tmp_path / "build"
    build.mkdir()
    db = build / "compile_commands.json"
    db.write_text(
        json.dumps(
            [
                {
                    "directory": str(build),
                    "command": f"nvcc -I{src / 'include'} -O2 -c {src}/app/main.cu -o main.o",
                    "file": str(src / "app" / "main.cu"),
                },
                {  # outside the tree: ignored
                    "directory": str(build),
                    "arguments": ["c++", "-c", "/elsewhere/x.cpp"],
                    "file": "/elsewhere/x.cpp",
                },
            ]
        )
    )
    assert BuildFiles(src, read_compile_commands(db)).relative() == {
        "app/main.cu",
        "app/local.cuh",
        "include/lib/api.h",
        "include/lib/deep.h",
    }
    report = port_tree(src, tmp_path / "out", compile_commands=db, mapping=pinned_mapping())
    status = {f.path: f.status for f in report.files}
    assert status["app/main.cu"] is FileStatus.TRANSLATED
    assert status["include/lib/deep.h"] is FileStatus.TRANSLATED
    for left_out in ("include/lib/unused.h", "app/commented.h", "tools/gen.cu"):
        assert status[left_out] is FileStatus.EXCLUDED
        assert "cudaFree" in (tmp_path / "out" / left_out).read_text()


def test_compile_commands_arguments_and_relative_dirs(tmp_path: Path) -> None:
    src = _build_tree(tmp_path / "proj")
    db = tmp_path / "compile_commands.json"
    db.write_text(
        json.dumps(
            [
                {
                    "directory": str(src),
                    "arguments": ["clang++", "-I", "include", "-c", "app/main.cu"],
                    "file": "app/main.cu",
                }
            ]
        )
    )
    assert "include/lib/api.h" in BuildFiles(src, read_compile_commands(db)).relative()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "invalid JSON"),
        ('{"file": "a.cu"}', "JSON list"),
        ('[{"directory": "/"}]', "entry 1 has no 'file'"),
        ('[{"directory": "/", "file": "a.cu"}]', "neither 'arguments' nor 'command'"),
        ('[{"directory": "/", "file": "/nowhere/a.cu", "command": "cc a.cu"}]', "no file inside"),
    ],
)
def test_bad_compile_commands(tmp_path: Path, content: str, message: str) -> None:
    src = _build_tree(tmp_path / "proj")
    db = tmp_path / "compile_commands.json"
    db.write_text(content)
    with pytest.raises(InputError, match=message):
        port_tree(src, tmp_path / "out", compile_commands=db, mapping=pinned_mapping())
    assert not (tmp_path / "out").exists()


def test_detect_rocm_release(tmp_path: Path) -> None:
    header = tmp_path / "include" / "hip" / "hip_version.h"
    header.parent.mkdir(parents=True)
    # the layout of the hip_version.h that HIP installs (see /usr/include/hip/hip_version.h)
    header.write_text(
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n"
        "#define HIP_VERSION_PATCH 43483\n"
    )
    assert detect_rocm_release([tmp_path / "missing", tmp_path]) == "6.4"
    with pytest.raises(InputError, match="no HIP installation"):
        detect_rocm_release([tmp_path / "missing"])


def test_detect_installed_rocm_release() -> None:
    installed = Path("/usr/include/hip/hip_version.h")
    if not installed.is_file():
        pytest.skip(f"no HIP headers installed: {installed} missing")
    assert detect_rocm_release([Path("/usr")]).count(".") == 1
