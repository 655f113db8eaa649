"""The top layer: each invoke task's library entry point (`<task>_command`) and its printing.
A command turns a task's option group into calls of the layers below and prints what they
return; nothing below imports from here."""
