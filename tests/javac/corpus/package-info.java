/** A package with annotations, as javac reads package-info.java. */
@Deprecated
@SuppressWarnings("x")
package annotated.pkg;

import java.lang.annotation.Native;
