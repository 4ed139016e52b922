"""The engine's version, stored with every result so a page can say which model produced a number."""

ENGINE_VERSION = "1.2.0"
