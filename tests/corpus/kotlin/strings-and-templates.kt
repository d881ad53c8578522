package p

val s = "a ${"b ${"c ${1 + 2}"}"} \u0041"
val t = """
  ${'$'}raw ${s.length}
"""
val `weird name` = 1
fun `test with spaces`() = Unit
