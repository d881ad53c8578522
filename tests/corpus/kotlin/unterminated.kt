package p
import a.b.C
class A {
  fun f() = """never closed
  /* nor this
