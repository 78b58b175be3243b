"""The package version: the project's version (top-level CMakeLists.txt, project(ilmap VERSION ...));
test.sh checks that they are equal."""

__version__ = "0.2.0"
