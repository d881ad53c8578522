package p;
import javax.servlet.*;
/* never closed
class A { String s = "
