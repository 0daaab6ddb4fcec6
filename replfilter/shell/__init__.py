"""The interactive shell: a thin prompt_toolkit layer over the parser, session and formatter.

One job per module, in the dbcli (mycli/litecli) shape:

* :mod:`.app` -- ``run_shell`` and the read-run loop (nothing else);
* :mod:`.buffer` -- when Enter ends the input (the statement splitter decides, as in scripts);
* :mod:`.commands` -- the registry of client commands (``help`` is generated from it);
* :mod:`.helptext` -- ``help <statement>``: syntax and an example for each statement;
* :mod:`.completion` -- what kind of word fits at the cursor, and which words those are;
* :mod:`.lexer` / :mod:`.style` -- highlighting of the dialect;
* :mod:`.toolbar` -- the bottom toolbar (channels, SQL threads, warnings);
* :mod:`.history` -- ``~/.replfilter_history`` (mode 0600);
* :mod:`.errormark` -- the caret under the place a syntax error starts;
* :mod:`.output` -- where text goes: the terminal, ``tee`` and ``pager``;
* :mod:`.keybindings` -- the few keys that differ from prompt_toolkit's defaults;
* :mod:`.warmup` -- pays Lark's first-parse cost in the background after the first prompt.

Importing this package never imports pyspark, and Lark is only loaded when a statement is parsed
or Tab is pressed, so the first prompt appears quickly.
"""
