estimate.o: estimate.c devfit.h estimate.h irqclass.h sample.h
devfit.h:
estimate.h:
irqclass.h:
sample.h:
