report.o: report.c report.h irqclass.h
report.h:
irqclass.h:
