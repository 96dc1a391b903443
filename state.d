state.o: state.c devfit.h fileio.h sample.h irqclass.h state.h
devfit.h:
fileio.h:
sample.h:
irqclass.h:
state.h:
