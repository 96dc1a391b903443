fileio.o: fileio.c fileio.h
fileio.h:
