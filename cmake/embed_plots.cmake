# Generates a C file holding every plots/*.gp as a string, so gqsim can write
# a script beside each figure it makes without knowing where it was installed.
# Usage: cmake -DSRC=<plots dir> -DOUT=<file.c> -P embed_plots.cmake
file(GLOB scripts "${SRC}/*.gp")
list(SORT scripts)
set(body "/* Generated from plots/ by cmake/embed_plots.cmake; do not edit. */\n#include <stddef.h>\n#include <string.h>\n\n")
set(table "")
set(i 0)
foreach(script ${scripts})
  get_filename_component(name "${script}" NAME_WE)
  file(READ "${script}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const char script_${i}[] = {${bytes} 0};\n")
  string(APPEND table "    {\"${name}\", script_${i}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\nconst char *gq_plot_script(const char *name);\n"
  "const char *gq_plot_script(const char *name)\n{\n"
  "    static const struct {\n        const char *name, *text;\n    } scripts[] = {\n${table}    {NULL, NULL}};\n"
  "    for (size_t i = 0; scripts[i].name; i++)\n        if (strcmp(scripts[i].name, name) == 0) return scripts[i].text;\n"
  "    return NULL;\n}\n")
file(WRITE "${OUT}.new" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
file(REMOVE "${OUT}.new")
