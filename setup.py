"""Builds the optional compiled walk (``extractors/_walk.pyx``); everything else is in
``pyproject.toml``.

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
                "forumcrawl.extractors._walk",
                ["extractors/_walk.pyx"],
                include_dirs=lxml.get_include(),
            )
        ],
        quiet=True,
    )
    for extension in ext_modules:  # cythonize does not carry ``optional`` over
        extension.optional = True
except Exception as exc:  # noqa: BLE001  (any failure here means: install without it)
    print(f"forumcrawl: the compiled walk is not built ({exc!r}); the Python walk is used")

setup(ext_modules=ext_modules)
