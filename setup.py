"""Builds the optional compiled parts (``extractors/_walk.pyx``, ``extractors/_scan.pyx``);
everything else is in ``pyproject.toml``.

The extension is optional in both senses: where Cython, lxml's headers or a C compiler are
missing, or the build fails, the install goes on without it and forumcrawl runs its Python walk
(same results, slower).
"""

from setuptools import setup

ext_modules = []
try:
    import lxml
    from Cython.Build import cythonize
    from setuptools import Extension

    ext_modules = cythonize(
        [
            Extension(
                f"forumcrawl.extractors.{name}", [f"extractors/{name}.pyx"], include_dirs=lxml.get_include()
            )
            for name in ("_walk", "_scan")
        ],
        quiet=True,
    )
    for extension in ext_modules:  # cythonize does not carry ``optional`` over
        extension.optional = True
except Exception as exc:  # noqa: BLE001  (any failure here means: install without it)
    print(f"forumcrawl: the compiled parts are not built ({exc!r}); the Python code is used")

setup(ext_modules=ext_modules)
