"""What a browser fetches besides the websocket: the status page and its script, the module's
manifest and zip, and the words the status page puts to a ruling's steps.

Imports the server, the engine and the layers below it; never the command line.
"""
