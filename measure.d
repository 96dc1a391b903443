measure.o: measure.c measure.h irqclass.h sample.h
measure.h:
irqclass.h:
sample.h:
