# cmake -DIN=obj -DOUT=header -DNAME=sym -P embed.cmake: a file's bytes as a C array.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* generated from ${IN} by bpf/embed.cmake */\nstatic const unsigned char ${NAME}[] = {\n${body}};\n")
