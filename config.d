config.o: config.c config.h cpuset.h irqclass.h fileio.h sample.h
config.h:
cpuset.h:
irqclass.h:
fileio.h:
sample.h:
