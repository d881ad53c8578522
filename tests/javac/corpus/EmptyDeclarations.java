package p;;
import java.util.List;;
;
import javax.servlet.Filter;
import static java.util.Collections.*;;

;abstract class EmptyDeclarations implements Filter {;
    List<String> names;;
    ;void m() {;}
};
;
interface Second {}
;;
