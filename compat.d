compat.o: compat.c compat.h cpuset.h fileio.h report.h irqclass.h \
 source.h capture.h
compat.h:
cpuset.h:
fileio.h:
report.h:
irqclass.h:
source.h:
capture.h:
