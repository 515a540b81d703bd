# Writes the man page tracesql.1 from the program's own --help texts (the top level and each
# subcommand), so the two never disagree.
# cmake -DTRACESQL=path/to/tracesql -DVERSION=x.y.z -DOUT=tracesql.1 -P ManPage.cmake

function(help_text out_var)
  execute_process(COMMAND ${TRACESQL} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TRACESQL} ${ARGN} --help failed (${rc})")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# One --help text as roff: no-fill, with backslashes, hyphens and leading dots escaped.
function(help_as_roff out_var)
  help_text(text ${ARGN})
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

help_as_roff(top)
# The subcommands: the first word of each line under "Subcommands:" in the top-level help.
help_text(top_text)
string(REGEX REPLACE ".*\nSubcommands:\n" "" listing "${top_text}")
string(REGEX MATCHALL "(^|\n)  [a-z][a-z_-]*" commands "${listing}")
list(TRANSFORM commands STRIP)
set(page ".TH TRACESQL 1 \"\" \"tracesql ${VERSION}\" \"User Commands\"
.SH NAME
tracesql \\- ask SQL questions of PyTorch profiler (Kineto) traces
.SH SYNOPSIS
.B tracesql
.I TRACE.json[.gz]
|
.I DB
.br
.B tracesql
.RI { COMMAND }
.RI [ OPTIONS ]
.SH DESCRIPTION
tracesql imports PyTorch profiler (Kineto) Chrome\\-trace JSON files into a plain SQLite database
and runs SQL on it: in its shell, with
.BR query ,
or by the name of a saved query with
.BR run .
All times are integer nanoseconds.
.PP
${top}.SH COMMANDS
")
if(NOT commands)
  message(FATAL_ERROR "no subcommands found in `${TRACESQL} --help`")
endif()
foreach(cmd IN LISTS commands)
  help_as_roff(sub ${cmd})
  string(APPEND page ".SS tracesql ${cmd}\n${sub}")
endforeach()
string(APPEND page ".SH EXIT STATUS
0 on success; 1 on an error, reported as one line on standard error.
.SH SEE ALSO
.BR sqlite3 (1).
The documentation installed with the program (README.md; docs/shell.md for the shell and saved
queries, docs/queries.md for the bundled queries, docs/schema.md for every table and view) is in
the tracesql documentation directory, e.g. /usr/local/share/doc/tracesql.
")
file(WRITE ${OUT} "${page}")
