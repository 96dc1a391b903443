costs.o: costs.c costs.h estimate.h irqclass.h sample.h measure.h \
 fileio.h pathnames.h source.h capture.h
costs.h:
estimate.h:
irqclass.h:
sample.h:
measure.h:
fileio.h:
pathnames.h:
source.h:
capture.h:
