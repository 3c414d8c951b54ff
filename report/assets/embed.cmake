# SPDX-License-Identifier: GPL-3.0-or-later
# Turns the files NAMES (comma-separated) of DIR into C strings in OUT (cmake -P): each file
# F becomes `const char sp_asset_<F as an identifier>[]`, NUL-terminated.
file(WRITE ${OUT}.tmp "/* Generated from report/assets/ by embed.cmake: do not edit. */\n"
                      "#include \"assets.h\"\n")
string(REPLACE "," ";" names "${NAMES}")
foreach(n ${names})
  file(READ ${DIR}/${n} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," arr "${hex}")
  string(MAKE_C_IDENTIFIER ${n} id)
  file(APPEND ${OUT}.tmp "const char sp_asset_${id}[] = {${arr}0};\n")
endforeach()
file(RENAME ${OUT}.tmp ${OUT})
