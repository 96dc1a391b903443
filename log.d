log.o: log.c log.h
log.h:
