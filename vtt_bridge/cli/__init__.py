"""The process: `vtt-bridge serve | schema`, the start-up checks, and the app factory that joins the
server and the web pages (the composition root).

The top layer: nothing in the package imports it but `__main__`.
"""
