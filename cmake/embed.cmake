# Writes a C++ source holding a binary file as a byte array: cmake -DIN=f -DOUT=f.cpp -DSYMBOL=s -P embed.cmake
# An absent or empty IN gives an empty array (the backend then says it has no kernels).
set(hex "")
if(EXISTS "${IN}")
  file(READ "${IN}" hex HEX)
endif()
string(LENGTH "${hex}" len)
math(EXPR size "${len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "// Generated from ${IN}.\nextern \"C\" const unsigned long long ${SYMBOL}_size = ${size};\n"
     "extern \"C\" alignas(64) const unsigned char ${SYMBOL}[] = {${bytes} 0};\n")
