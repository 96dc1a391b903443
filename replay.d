replay.o: replay.c capture.h cpuset.h fileio.h replay.h measure.h \
 irqclass.h sample.h
capture.h:
cpuset.h:
fileio.h:
replay.h:
measure.h:
irqclass.h:
sample.h:
