"""One world and its rulings, without I/O: the world (validate, rule, derive, diff, hand over to
commit), undo's history, the JSON patch, and the wire messages with their schema.

Imports the rules, the document, the actions and the error tree below it; never the store, the server,
the web pages or the command line.
"""
