apply.o: apply.c apply.h fileio.h pathnames.h
apply.h:
fileio.h:
pathnames.h:
