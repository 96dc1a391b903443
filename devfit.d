devfit.o: devfit.c devfit.h
devfit.h:
