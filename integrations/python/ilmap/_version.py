"""The package version: the project's version (VERSION at the top of the repository);
test.sh checks that they are equal."""

__version__ = "0.2.0"
