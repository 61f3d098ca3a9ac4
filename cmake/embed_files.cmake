# Generates a C file holding every SRC/PATTERN file as a string, so gqsim finds
# its built-in models, data and plot scripts wherever it runs from.
# Usage: cmake -DSRC=<dir> -DPATTERN=<glob> -DFUNC=<c name> -DOUT=<file.c> -P embed_files.cmake
# Defines: const char *FUNC(const char *name);   /* NULL if unknown */
#          size_t FUNC_count(void); const char *FUNC_name(size_t i);
file(GLOB files "${SRC}/${PATTERN}")
list(SORT files)
set(body "/* Generated from ${PATTERN} by cmake/embed_files.cmake; do not edit. */\n#include <stddef.h>\n#include <string.h>\n\n")
set(table "")
set(i 0)
foreach(f ${files})
  get_filename_component(name "${f}" NAME_WE)
  file(READ "${f}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const char text_${i}[] = {${bytes} 0};\n")
  string(APPEND table "    {\"${name}\", text_${i}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "
static const struct {
    const char *name, *text;
} entries[] = {
${table}    {NULL, NULL}};

const char *${FUNC}(const char *name);
size_t ${FUNC}_count(void);
const char *${FUNC}_name(size_t i);

const char *${FUNC}(const char *name)
{
    for (size_t i = 0; entries[i].name; i++)
        if (strcmp(entries[i].name, name) == 0) return entries[i].text;
    return NULL;
}
size_t ${FUNC}_count(void) { return sizeof entries / sizeof entries[0] - 1; }
const char *${FUNC}_name(size_t i) { return i < ${FUNC}_count() ? entries[i].name : NULL; }
")
file(WRITE "${OUT}.new" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
file(REMOVE "${OUT}.new")
