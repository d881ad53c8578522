class C0 {
class C1 {
class C2 {
class C3 {
class C4 {
class C5 {
class C6 {
class C7 {
class C8 {
class C9 {
class C10 {
class C11 {
class C12 {
class C13 {
class C14 {
class C15 {
class C16 {
class C17 {
class C18 {
class C19 {
class C20 {
class C21 {
class C22 {
class C23 {
class C24 {
class C25 {
class C26 {
class C27 {
class C28 {
class C29 {
class C30 {
class C31 {
class C32 {
class C33 {
class C34 {
class C35 {
class C36 {
class C37 {
class C38 {
class C39 {
class C40 {
class C41 {
class C42 {
class C43 {
class C44 {
class C45 {
class C46 {
class C47 {
class C48 {
class C49 {
class C50 {
class C51 {
class C52 {
class C53 {
class C54 {
class C55 {
class C56 {
class C57 {
class C58 {
class C59 {
class C60 {
class C61 {
class C62 {
class C63 {
class C64 {
class C65 {
class C66 {
class C67 {
class C68 {
class C69 {
class C70 {
class C71 {
class C72 {
class C73 {
class C74 {
class C75 {
class C76 {
class C77 {
class C78 {
class C79 {
class C80 {
class C81 {
class C82 {
class C83 {
class C84 {
class C85 {
class C86 {
class C87 {
class C88 {
class C89 {
class C90 {
class C91 {
class C92 {
class C93 {
class C94 {
class C95 {
class C96 {
class C97 {
class C98 {
class C99 {
class C100 {
class C101 {
class C102 {
class C103 {
class C104 {
class C105 {
class C106 {
class C107 {
class C108 {
class C109 {
class C110 {
class C111 {
class C112 {
class C113 {
class C114 {
class C115 {
class C116 {
class C117 {
class C118 {
class C119 {
class C120 {
class C121 {
class C122 {
class C123 {
class C124 {
class C125 {
class C126 {
class C127 {
class C128 {
class C129 {
class C130 {
class C131 {
class C132 {
class C133 {
class C134 {
class C135 {
class C136 {
class C137 {
class C138 {
class C139 {
class C140 {
class C141 {
class C142 {
class C143 {
class C144 {
class C145 {
class C146 {
class C147 {
class C148 {
class C149 {
class C150 {
class C151 {
class C152 {
class C153 {
class C154 {
class C155 {
class C156 {
class C157 {
class C158 {
class C159 {
class C160 {
class C161 {
class C162 {
class C163 {
class C164 {
class C165 {
class C166 {
class C167 {
class C168 {
class C169 {
class C170 {
class C171 {
class C172 {
class C173 {
class C174 {
class C175 {
class C176 {
class C177 {
class C178 {
class C179 {
class C180 {
class C181 {
class C182 {
class C183 {
class C184 {
class C185 {
class C186 {
class C187 {
class C188 {
class C189 {
class C190 {
class C191 {
class C192 {
class C193 {
class C194 {
class C195 {
class C196 {
class C197 {
class C198 {
class C199 {
class C200 {
class C201 {
class C202 {
class C203 {
class C204 {
class C205 {
class C206 {
class C207 {
class C208 {
class C209 {
class C210 {
class C211 {
class C212 {
class C213 {
class C214 {
class C215 {
class C216 {
class C217 {
class C218 {
class C219 {
class C220 {
class C221 {
class C222 {
class C223 {
class C224 {
class C225 {
class C226 {
class C227 {
class C228 {
class C229 {
class C230 {
class C231 {
class C232 {
class C233 {
class C234 {
class C235 {
class C236 {
class C237 {
class C238 {
class C239 {
class C240 {
class C241 {
class C242 {
class C243 {
class C244 {
class C245 {
class C246 {
class C247 {
class C248 {
class C249 {
class C250 {
class C251 {
class C252 {
class C253 {
class C254 {
class C255 {
class C256 {
class C257 {
class C258 {
class C259 {
class C260 {
class C261 {
class C262 {
class C263 {
class C264 {
class C265 {
class C266 {
class C267 {
class C268 {
class C269 {
class C270 {
class C271 {
class C272 {
class C273 {
class C274 {
class C275 {
class C276 {
class C277 {
class C278 {
class C279 {
class C280 {
class C281 {
class C282 {
class C283 {
class C284 {
class C285 {
class C286 {
class C287 {
class C288 {
class C289 {
class C290 {
class C291 {
class C292 {
class C293 {
class C294 {
class C295 {
class C296 {
class C297 {
class C298 {
class C299 {
class C300 {
class C301 {
class C302 {
class C303 {
class C304 {
class C305 {
class C306 {
class C307 {
class C308 {
class C309 {
class C310 {
class C311 {
class C312 {
class C313 {
class C314 {
class C315 {
class C316 {
class C317 {
class C318 {
class C319 {
class C320 {
class C321 {
class C322 {
class C323 {
class C324 {
class C325 {
class C326 {
class C327 {
class C328 {
class C329 {
class C330 {
class C331 {
class C332 {
class C333 {
class C334 {
class C335 {
class C336 {
class C337 {
class C338 {
class C339 {
class C340 {
class C341 {
class C342 {
class C343 {
class C344 {
class C345 {
class C346 {
class C347 {
class C348 {
class C349 {
class C350 {
class C351 {
class C352 {
class C353 {
class C354 {
class C355 {
class C356 {
class C357 {
class C358 {
class C359 {
class C360 {
class C361 {
class C362 {
class C363 {
class C364 {
class C365 {
class C366 {
class C367 {
class C368 {
class C369 {
class C370 {
class C371 {
class C372 {
class C373 {
class C374 {
class C375 {
class C376 {
class C377 {
class C378 {
class C379 {
class C380 {
class C381 {
class C382 {
class C383 {
class C384 {
class C385 {
class C386 {
class C387 {
class C388 {
class C389 {
class C390 {
class C391 {
class C392 {
class C393 {
class C394 {
class C395 {
class C396 {
class C397 {
class C398 {
class C399 {
class C400 {
class C401 {
class C402 {
class C403 {
class C404 {
class C405 {
class C406 {
class C407 {
class C408 {
class C409 {
class C410 {
class C411 {
class C412 {
class C413 {
class C414 {
class C415 {
class C416 {
class C417 {
class C418 {
class C419 {
class C420 {
class C421 {
class C422 {
class C423 {
class C424 {
class C425 {
class C426 {
class C427 {
class C428 {
class C429 {
class C430 {
class C431 {
class C432 {
class C433 {
class C434 {
class C435 {
class C436 {
class C437 {
class C438 {
class C439 {
class C440 {
class C441 {
class C442 {
class C443 {
class C444 {
class C445 {
class C446 {
class C447 {
class C448 {
class C449 {
class C450 {
class C451 {
class C452 {
class C453 {
class C454 {
class C455 {
class C456 {
class C457 {
class C458 {
class C459 {
class C460 {
class C461 {
class C462 {
class C463 {
class C464 {
class C465 {
class C466 {
class C467 {
class C468 {
class C469 {
class C470 {
class C471 {
class C472 {
class C473 {
class C474 {
class C475 {
class C476 {
class C477 {
class C478 {
class C479 {
class C480 {
class C481 {
class C482 {
class C483 {
class C484 {
class C485 {
class C486 {
class C487 {
class C488 {
class C489 {
class C490 {
class C491 {
class C492 {
class C493 {
class C494 {
class C495 {
class C496 {
class C497 {
class C498 {
class C499 {
class C500 {
class C501 {
class C502 {
class C503 {
class C504 {
class C505 {
class C506 {
class C507 {
class C508 {
class C509 {
class C510 {
class C511 {
class C512 {
class C513 {
class C514 {
class C515 {
class C516 {
class C517 {
class C518 {
class C519 {
class C520 {
class C521 {
class C522 {
class C523 {
class C524 {
class C525 {
class C526 {
class C527 {
class C528 {
class C529 {
class C530 {
class C531 {
class C532 {
class C533 {
class C534 {
class C535 {
class C536 {
class C537 {
class C538 {
class C539 {
class C540 {
class C541 {
class C542 {
class C543 {
class C544 {
class C545 {
class C546 {
class C547 {
class C548 {
class C549 {
class C550 {
class C551 {
class C552 {
class C553 {
class C554 {
class C555 {
class C556 {
class C557 {
class C558 {
class C559 {
class C560 {
class C561 {
class C562 {
class C563 {
class C564 {
class C565 {
class C566 {
class C567 {
class C568 {
class C569 {
class C570 {
class C571 {
class C572 {
class C573 {
class C574 {
class C575 {
class C576 {
class C577 {
class C578 {
class C579 {
class C580 {
class C581 {
class C582 {
class C583 {
class C584 {
class C585 {
class C586 {
class C587 {
class C588 {
class C589 {
class C590 {
class C591 {
class C592 {
class C593 {
class C594 {
class C595 {
class C596 {
class C597 {
class C598 {
class C599 {
class C600 {
class C601 {
class C602 {
class C603 {
class C604 {
class C605 {
class C606 {
class C607 {
class C608 {
class C609 {
class C610 {
class C611 {
class C612 {
class C613 {
class C614 {
class C615 {
class C616 {
class C617 {
class C618 {
class C619 {
class C620 {
class C621 {
class C622 {
class C623 {
class C624 {
class C625 {
class C626 {
class C627 {
class C628 {
class C629 {
class C630 {
class C631 {
class C632 {
class C633 {
class C634 {
class C635 {
class C636 {
class C637 {
class C638 {
class C639 {
class C640 {
class C641 {
class C642 {
class C643 {
class C644 {
class C645 {
class C646 {
class C647 {
class C648 {
class C649 {
class C650 {
class C651 {
class C652 {
class C653 {
class C654 {
class C655 {
class C656 {
class C657 {
class C658 {
class C659 {
class C660 {
class C661 {
class C662 {
class C663 {
class C664 {
class C665 {
class C666 {
class C667 {
class C668 {
class C669 {
class C670 {
class C671 {
class C672 {
class C673 {
class C674 {
class C675 {
class C676 {
class C677 {
class C678 {
class C679 {
class C680 {
class C681 {
class C682 {
class C683 {
class C684 {
class C685 {
class C686 {
class C687 {
class C688 {
class C689 {
class C690 {
class C691 {
class C692 {
class C693 {
class C694 {
class C695 {
class C696 {
class C697 {
class C698 {
class C699 {
class C700 {
class C701 {
class C702 {
class C703 {
class C704 {
class C705 {
class C706 {
class C707 {
class C708 {
class C709 {
class C710 {
class C711 {
class C712 {
class C713 {
class C714 {
class C715 {
class C716 {
class C717 {
class C718 {
class C719 {
class C720 {
class C721 {
class C722 {
class C723 {
class C724 {
class C725 {
class C726 {
class C727 {
class C728 {
class C729 {
class C730 {
class C731 {
class C732 {
class C733 {
class C734 {
class C735 {
class C736 {
class C737 {
class C738 {
class C739 {
class C740 {
class C741 {
class C742 {
class C743 {
class C744 {
class C745 {
class C746 {
class C747 {
class C748 {
class C749 {
class C750 {
class C751 {
class C752 {
class C753 {
class C754 {
class C755 {
class C756 {
class C757 {
class C758 {
class C759 {
class C760 {
class C761 {
class C762 {
class C763 {
class C764 {
class C765 {
class C766 {
class C767 {
class C768 {
class C769 {
class C770 {
class C771 {
class C772 {
class C773 {
class C774 {
class C775 {
class C776 {
class C777 {
class C778 {
class C779 {
class C780 {
class C781 {
class C782 {
class C783 {
class C784 {
class C785 {
class C786 {
class C787 {
class C788 {
class C789 {
class C790 {
class C791 {
class C792 {
class C793 {
class C794 {
class C795 {
class C796 {
class C797 {
class C798 {
class C799 {
class C800 {
class C801 {
class C802 {
class C803 {
class C804 {
class C805 {
class C806 {
class C807 {
class C808 {
class C809 {
class C810 {
class C811 {
class C812 {
class C813 {
class C814 {
class C815 {
class C816 {
class C817 {
class C818 {
class C819 {
class C820 {
class C821 {
class C822 {
class C823 {
class C824 {
class C825 {
class C826 {
class C827 {
class C828 {
class C829 {
class C830 {
class C831 {
class C832 {
class C833 {
class C834 {
class C835 {
class C836 {
class C837 {
class C838 {
class C839 {
class C840 {
class C841 {
class C842 {
class C843 {
class C844 {
class C845 {
class C846 {
class C847 {
class C848 {
class C849 {
class C850 {
class C851 {
class C852 {
class C853 {
class C854 {
class C855 {
class C856 {
class C857 {
class C858 {
class C859 {
class C860 {
class C861 {
class C862 {
class C863 {
class C864 {
class C865 {
class C866 {
class C867 {
class C868 {
class C869 {
class C870 {
class C871 {
class C872 {
class C873 {
class C874 {
class C875 {
class C876 {
class C877 {
class C878 {
class C879 {
class C880 {
class C881 {
class C882 {
class C883 {
class C884 {
class C885 {
class C886 {
class C887 {
class C888 {
class C889 {
class C890 {
class C891 {
class C892 {
class C893 {
class C894 {
class C895 {
class C896 {
class C897 {
class C898 {
class C899 {
class C900 {
class C901 {
class C902 {
class C903 {
class C904 {
class C905 {
class C906 {
class C907 {
class C908 {
class C909 {
class C910 {
class C911 {
class C912 {
class C913 {
class C914 {
class C915 {
class C916 {
class C917 {
class C918 {
class C919 {
class C920 {
class C921 {
class C922 {
class C923 {
class C924 {
class C925 {
class C926 {
class C927 {
class C928 {
class C929 {
class C930 {
class C931 {
class C932 {
class C933 {
class C934 {
class C935 {
class C936 {
class C937 {
class C938 {
class C939 {
class C940 {
class C941 {
class C942 {
class C943 {
class C944 {
class C945 {
class C946 {
class C947 {
class C948 {
class C949 {
class C950 {
class C951 {
class C952 {
class C953 {
class C954 {
class C955 {
class C956 {
class C957 {
class C958 {
class C959 {
class C960 {
class C961 {
class C962 {
class C963 {
class C964 {
class C965 {
class C966 {
class C967 {
class C968 {
class C969 {
class C970 {
class C971 {
class C972 {
class C973 {
class C974 {
class C975 {
class C976 {
class C977 {
class C978 {
class C979 {
class C980 {
class C981 {
class C982 {
class C983 {
class C984 {
class C985 {
class C986 {
class C987 {
class C988 {
class C989 {
class C990 {
class C991 {
class C992 {
class C993 {
class C994 {
class C995 {
class C996 {
class C997 {
class C998 {
class C999 {
class C1000 {
class C1001 {
class C1002 {
class C1003 {
class C1004 {
class C1005 {
class C1006 {
class C1007 {
class C1008 {
class C1009 {
class C1010 {
class C1011 {
class C1012 {
class C1013 {
class C1014 {
class C1015 {
class C1016 {
class C1017 {
class C1018 {
class C1019 {
class C1020 {
class C1021 {
class C1022 {
class C1023 {
class C1024 {
class C1025 {
class C1026 {
class C1027 {
class C1028 {
class C1029 {
class C1030 {
class C1031 {
class C1032 {
class C1033 {
class C1034 {
class C1035 {
class C1036 {
class C1037 {
class C1038 {
class C1039 {
class C1040 {
class C1041 {
class C1042 {
class C1043 {
class C1044 {
class C1045 {
class C1046 {
class C1047 {
class C1048 {
class C1049 {
class C1050 {
class C1051 {
class C1052 {
class C1053 {
class C1054 {
class C1055 {
class C1056 {
class C1057 {
class C1058 {
class C1059 {
class C1060 {
class C1061 {
class C1062 {
class C1063 {
class C1064 {
class C1065 {
class C1066 {
class C1067 {
class C1068 {
class C1069 {
class C1070 {
class C1071 {
class C1072 {
class C1073 {
class C1074 {
class C1075 {
class C1076 {
class C1077 {
class C1078 {
class C1079 {
class C1080 {
class C1081 {
class C1082 {
class C1083 {
class C1084 {
class C1085 {
class C1086 {
class C1087 {
class C1088 {
class C1089 {
class C1090 {
class C1091 {
class C1092 {
class C1093 {
class C1094 {
class C1095 {
class C1096 {
class C1097 {
class C1098 {
class C1099 {
class C1100 {
class C1101 {
class C1102 {
class C1103 {
class C1104 {
class C1105 {
class C1106 {
class C1107 {
class C1108 {
class C1109 {
class C1110 {
class C1111 {
class C1112 {
class C1113 {
class C1114 {
class C1115 {
class C1116 {
class C1117 {
class C1118 {
class C1119 {
class C1120 {
class C1121 {
class C1122 {
class C1123 {
class C1124 {
class C1125 {
class C1126 {
class C1127 {
class C1128 {
class C1129 {
class C1130 {
class C1131 {
class C1132 {
class C1133 {
class C1134 {
class C1135 {
class C1136 {
class C1137 {
class C1138 {
class C1139 {
class C1140 {
class C1141 {
class C1142 {
class C1143 {
class C1144 {
class C1145 {
class C1146 {
class C1147 {
class C1148 {
class C1149 {
class C1150 {
class C1151 {
class C1152 {
class C1153 {
class C1154 {
class C1155 {
class C1156 {
class C1157 {
class C1158 {
class C1159 {
class C1160 {
class C1161 {
class C1162 {
class C1163 {
class C1164 {
class C1165 {
class C1166 {
class C1167 {
class C1168 {
class C1169 {
class C1170 {
class C1171 {
class C1172 {
class C1173 {
class C1174 {
class C1175 {
class C1176 {
class C1177 {
class C1178 {
class C1179 {
class C1180 {
class C1181 {
class C1182 {
class C1183 {
class C1184 {
class C1185 {
class C1186 {
class C1187 {
class C1188 {
class C1189 {
class C1190 {
class C1191 {
class C1192 {
class C1193 {
class C1194 {
class C1195 {
class C1196 {
class C1197 {
class C1198 {
class C1199 {
class C1200 {
class C1201 {
class C1202 {
class C1203 {
class C1204 {
class C1205 {
class C1206 {
class C1207 {
class C1208 {
class C1209 {
class C1210 {
class C1211 {
class C1212 {
class C1213 {
class C1214 {
class C1215 {
class C1216 {
class C1217 {
class C1218 {
class C1219 {
class C1220 {
class C1221 {
class C1222 {
class C1223 {
class C1224 {
class C1225 {
class C1226 {
class C1227 {
class C1228 {
class C1229 {
class C1230 {
class C1231 {
class C1232 {
class C1233 {
class C1234 {
class C1235 {
class C1236 {
class C1237 {
class C1238 {
class C1239 {
class C1240 {
class C1241 {
class C1242 {
class C1243 {
class C1244 {
class C1245 {
class C1246 {
class C1247 {
class C1248 {
class C1249 {
class C1250 {
class C1251 {
class C1252 {
class C1253 {
class C1254 {
class C1255 {
class C1256 {
class C1257 {
class C1258 {
class C1259 {
class C1260 {
class C1261 {
class C1262 {
class C1263 {
class C1264 {
class C1265 {
class C1266 {
class C1267 {
class C1268 {
class C1269 {
class C1270 {
class C1271 {
class C1272 {
class C1273 {
class C1274 {
class C1275 {
class C1276 {
class C1277 {
class C1278 {
class C1279 {
class C1280 {
class C1281 {
class C1282 {
class C1283 {
class C1284 {
class C1285 {
class C1286 {
class C1287 {
class C1288 {
class C1289 {
class C1290 {
class C1291 {
class C1292 {
class C1293 {
class C1294 {
class C1295 {
class C1296 {
class C1297 {
class C1298 {
class C1299 {
class C1300 {
class C1301 {
class C1302 {
class C1303 {
class C1304 {
class C1305 {
class C1306 {
class C1307 {
class C1308 {
class C1309 {
class C1310 {
class C1311 {
class C1312 {
class C1313 {
class C1314 {
class C1315 {
class C1316 {
class C1317 {
class C1318 {
class C1319 {
class C1320 {
class C1321 {
class C1322 {
class C1323 {
class C1324 {
class C1325 {
class C1326 {
class C1327 {
class C1328 {
class C1329 {
class C1330 {
class C1331 {
class C1332 {
class C1333 {
class C1334 {
class C1335 {
class C1336 {
class C1337 {
class C1338 {
class C1339 {
class C1340 {
class C1341 {
class C1342 {
class C1343 {
class C1344 {
class C1345 {
class C1346 {
class C1347 {
class C1348 {
class C1349 {
class C1350 {
class C1351 {
class C1352 {
class C1353 {
class C1354 {
class C1355 {
class C1356 {
class C1357 {
class C1358 {
class C1359 {
class C1360 {
class C1361 {
class C1362 {
class C1363 {
class C1364 {
class C1365 {
class C1366 {
class C1367 {
class C1368 {
class C1369 {
class C1370 {
class C1371 {
class C1372 {
class C1373 {
class C1374 {
class C1375 {
class C1376 {
class C1377 {
class C1378 {
class C1379 {
class C1380 {
class C1381 {
class C1382 {
class C1383 {
class C1384 {
class C1385 {
class C1386 {
class C1387 {
class C1388 {
class C1389 {
class C1390 {
class C1391 {
class C1392 {
class C1393 {
class C1394 {
class C1395 {
class C1396 {
class C1397 {
class C1398 {
class C1399 {
class C1400 {
class C1401 {
class C1402 {
class C1403 {
class C1404 {
class C1405 {
class C1406 {
class C1407 {
class C1408 {
class C1409 {
class C1410 {
class C1411 {
class C1412 {
class C1413 {
class C1414 {
class C1415 {
class C1416 {
class C1417 {
class C1418 {
class C1419 {
class C1420 {
class C1421 {
class C1422 {
class C1423 {
class C1424 {
class C1425 {
class C1426 {
class C1427 {
class C1428 {
class C1429 {
class C1430 {
class C1431 {
class C1432 {
class C1433 {
class C1434 {
class C1435 {
class C1436 {
class C1437 {
class C1438 {
class C1439 {
class C1440 {
class C1441 {
class C1442 {
class C1443 {
class C1444 {
class C1445 {
class C1446 {
class C1447 {
class C1448 {
class C1449 {
class C1450 {
class C1451 {
class C1452 {
class C1453 {
class C1454 {
class C1455 {
class C1456 {
class C1457 {
class C1458 {
class C1459 {
class C1460 {
class C1461 {
class C1462 {
class C1463 {
class C1464 {
class C1465 {
class C1466 {
class C1467 {
class C1468 {
class C1469 {
class C1470 {
class C1471 {
class C1472 {
class C1473 {
class C1474 {
class C1475 {
class C1476 {
class C1477 {
class C1478 {
class C1479 {
class C1480 {
class C1481 {
class C1482 {
class C1483 {
class C1484 {
class C1485 {
class C1486 {
class C1487 {
class C1488 {
class C1489 {
class C1490 {
class C1491 {
class C1492 {
class C1493 {
class C1494 {
class C1495 {
class C1496 {
class C1497 {
class C1498 {
class C1499 {
class C1500 {
class C1501 {
class C1502 {
class C1503 {
class C1504 {
class C1505 {
class C1506 {
class C1507 {
class C1508 {
class C1509 {
class C1510 {
class C1511 {
class C1512 {
class C1513 {
class C1514 {
class C1515 {
class C1516 {
class C1517 {
class C1518 {
class C1519 {
class C1520 {
class C1521 {
class C1522 {
class C1523 {
class C1524 {
class C1525 {
class C1526 {
class C1527 {
class C1528 {
class C1529 {
class C1530 {
class C1531 {
class C1532 {
class C1533 {
class C1534 {
class C1535 {
class C1536 {
class C1537 {
class C1538 {
class C1539 {
class C1540 {
class C1541 {
class C1542 {
class C1543 {
class C1544 {
class C1545 {
class C1546 {
class C1547 {
class C1548 {
class C1549 {
class C1550 {
class C1551 {
class C1552 {
class C1553 {
class C1554 {
class C1555 {
class C1556 {
class C1557 {
class C1558 {
class C1559 {
class C1560 {
class C1561 {
class C1562 {
class C1563 {
class C1564 {
class C1565 {
class C1566 {
class C1567 {
class C1568 {
class C1569 {
class C1570 {
class C1571 {
class C1572 {
class C1573 {
class C1574 {
class C1575 {
class C1576 {
class C1577 {
class C1578 {
class C1579 {
class C1580 {
class C1581 {
class C1582 {
class C1583 {
class C1584 {
class C1585 {
class C1586 {
class C1587 {
class C1588 {
class C1589 {
class C1590 {
class C1591 {
class C1592 {
class C1593 {
class C1594 {
class C1595 {
class C1596 {
class C1597 {
class C1598 {
class C1599 {
class C1600 {
class C1601 {
class C1602 {
class C1603 {
class C1604 {
class C1605 {
class C1606 {
class C1607 {
class C1608 {
class C1609 {
class C1610 {
class C1611 {
class C1612 {
class C1613 {
class C1614 {
class C1615 {
class C1616 {
class C1617 {
class C1618 {
class C1619 {
class C1620 {
class C1621 {
class C1622 {
class C1623 {
class C1624 {
class C1625 {
class C1626 {
class C1627 {
class C1628 {
class C1629 {
class C1630 {
class C1631 {
class C1632 {
class C1633 {
class C1634 {
class C1635 {
class C1636 {
class C1637 {
class C1638 {
class C1639 {
class C1640 {
class C1641 {
class C1642 {
class C1643 {
class C1644 {
class C1645 {
class C1646 {
class C1647 {
class C1648 {
class C1649 {
class C1650 {
class C1651 {
class C1652 {
class C1653 {
class C1654 {
class C1655 {
class C1656 {
class C1657 {
class C1658 {
class C1659 {
class C1660 {
class C1661 {
class C1662 {
class C1663 {
class C1664 {
class C1665 {
class C1666 {
class C1667 {
class C1668 {
class C1669 {
class C1670 {
class C1671 {
class C1672 {
class C1673 {
class C1674 {
class C1675 {
class C1676 {
class C1677 {
class C1678 {
class C1679 {
class C1680 {
class C1681 {
class C1682 {
class C1683 {
class C1684 {
class C1685 {
class C1686 {
class C1687 {
class C1688 {
class C1689 {
class C1690 {
class C1691 {
class C1692 {
class C1693 {
class C1694 {
class C1695 {
class C1696 {
class C1697 {
class C1698 {
class C1699 {
class C1700 {
class C1701 {
class C1702 {
class C1703 {
class C1704 {
class C1705 {
class C1706 {
class C1707 {
class C1708 {
class C1709 {
class C1710 {
class C1711 {
class C1712 {
class C1713 {
class C1714 {
class C1715 {
class C1716 {
class C1717 {
class C1718 {
class C1719 {
class C1720 {
class C1721 {
class C1722 {
class C1723 {
class C1724 {
class C1725 {
class C1726 {
class C1727 {
class C1728 {
class C1729 {
class C1730 {
class C1731 {
class C1732 {
class C1733 {
class C1734 {
class C1735 {
class C1736 {
class C1737 {
class C1738 {
class C1739 {
class C1740 {
class C1741 {
class C1742 {
class C1743 {
class C1744 {
class C1745 {
class C1746 {
class C1747 {
class C1748 {
class C1749 {
class C1750 {
class C1751 {
class C1752 {
class C1753 {
class C1754 {
class C1755 {
class C1756 {
class C1757 {
class C1758 {
class C1759 {
class C1760 {
class C1761 {
class C1762 {
class C1763 {
class C1764 {
class C1765 {
class C1766 {
class C1767 {
class C1768 {
class C1769 {
class C1770 {
class C1771 {
class C1772 {
class C1773 {
class C1774 {
class C1775 {
class C1776 {
class C1777 {
class C1778 {
class C1779 {
class C1780 {
class C1781 {
class C1782 {
class C1783 {
class C1784 {
class C1785 {
class C1786 {
class C1787 {
class C1788 {
class C1789 {
class C1790 {
class C1791 {
class C1792 {
class C1793 {
class C1794 {
class C1795 {
class C1796 {
class C1797 {
class C1798 {
class C1799 {
class C1800 {
class C1801 {
class C1802 {
class C1803 {
class C1804 {
class C1805 {
class C1806 {
class C1807 {
class C1808 {
class C1809 {
class C1810 {
class C1811 {
class C1812 {
class C1813 {
class C1814 {
class C1815 {
class C1816 {
class C1817 {
class C1818 {
class C1819 {
class C1820 {
class C1821 {
class C1822 {
class C1823 {
class C1824 {
class C1825 {
class C1826 {
class C1827 {
class C1828 {
class C1829 {
class C1830 {
class C1831 {
class C1832 {
class C1833 {
class C1834 {
class C1835 {
class C1836 {
class C1837 {
class C1838 {
class C1839 {
class C1840 {
class C1841 {
class C1842 {
class C1843 {
class C1844 {
class C1845 {
class C1846 {
class C1847 {
class C1848 {
class C1849 {
class C1850 {
class C1851 {
class C1852 {
class C1853 {
class C1854 {
class C1855 {
class C1856 {
class C1857 {
class C1858 {
class C1859 {
class C1860 {
class C1861 {
class C1862 {
class C1863 {
class C1864 {
class C1865 {
class C1866 {
class C1867 {
class C1868 {
class C1869 {
class C1870 {
class C1871 {
class C1872 {
class C1873 {
class C1874 {
class C1875 {
class C1876 {
class C1877 {
class C1878 {
class C1879 {
class C1880 {
class C1881 {
class C1882 {
class C1883 {
class C1884 {
class C1885 {
class C1886 {
class C1887 {
class C1888 {
class C1889 {
class C1890 {
class C1891 {
class C1892 {
class C1893 {
class C1894 {
class C1895 {
class C1896 {
class C1897 {
class C1898 {
class C1899 {
class C1900 {
class C1901 {
class C1902 {
class C1903 {
class C1904 {
class C1905 {
class C1906 {
class C1907 {
class C1908 {
class C1909 {
class C1910 {
class C1911 {
class C1912 {
class C1913 {
class C1914 {
class C1915 {
class C1916 {
class C1917 {
class C1918 {
class C1919 {
class C1920 {
class C1921 {
class C1922 {
class C1923 {
class C1924 {
class C1925 {
class C1926 {
class C1927 {
class C1928 {
class C1929 {
class C1930 {
class C1931 {
class C1932 {
class C1933 {
class C1934 {
class C1935 {
class C1936 {
class C1937 {
class C1938 {
class C1939 {
class C1940 {
class C1941 {
class C1942 {
class C1943 {
class C1944 {
class C1945 {
class C1946 {
class C1947 {
class C1948 {
class C1949 {
class C1950 {
class C1951 {
class C1952 {
class C1953 {
class C1954 {
class C1955 {
class C1956 {
class C1957 {
class C1958 {
class C1959 {
class C1960 {
class C1961 {
class C1962 {
class C1963 {
class C1964 {
class C1965 {
class C1966 {
class C1967 {
class C1968 {
class C1969 {
class C1970 {
class C1971 {
class C1972 {
class C1973 {
class C1974 {
class C1975 {
class C1976 {
class C1977 {
class C1978 {
class C1979 {
class C1980 {
class C1981 {
class C1982 {
class C1983 {
class C1984 {
class C1985 {
class C1986 {
class C1987 {
class C1988 {
class C1989 {
class C1990 {
class C1991 {
class C1992 {
class C1993 {
class C1994 {
class C1995 {
class C1996 {
class C1997 {
class C1998 {
class C1999 {
class C2000 {
class C2001 {
class C2002 {
class C2003 {
class C2004 {
class C2005 {
class C2006 {
class C2007 {
class C2008 {
class C2009 {
class C2010 {
class C2011 {
class C2012 {
class C2013 {
class C2014 {
class C2015 {
class C2016 {
class C2017 {
class C2018 {
class C2019 {
class C2020 {
class C2021 {
class C2022 {
class C2023 {
class C2024 {
class C2025 {
class C2026 {
class C2027 {
class C2028 {
class C2029 {
class C2030 {
class C2031 {
class C2032 {
class C2033 {
class C2034 {
class C2035 {
class C2036 {
class C2037 {
class C2038 {
class C2039 {
class C2040 {
class C2041 {
class C2042 {
class C2043 {
class C2044 {
class C2045 {
class C2046 {
class C2047 {
class C2048 {
class C2049 {
class C2050 {
class C2051 {
class C2052 {
class C2053 {
class C2054 {
class C2055 {
class C2056 {
class C2057 {
class C2058 {
class C2059 {
class C2060 {
class C2061 {
class C2062 {
class C2063 {
class C2064 {
class C2065 {
class C2066 {
class C2067 {
class C2068 {
class C2069 {
class C2070 {
class C2071 {
class C2072 {
class C2073 {
class C2074 {
class C2075 {
class C2076 {
class C2077 {
class C2078 {
class C2079 {
class C2080 {
class C2081 {
class C2082 {
class C2083 {
class C2084 {
class C2085 {
class C2086 {
class C2087 {
class C2088 {
class C2089 {
class C2090 {
class C2091 {
class C2092 {
class C2093 {
class C2094 {
class C2095 {
class C2096 {
class C2097 {
class C2098 {
class C2099 {
class C2100 {
class C2101 {
class C2102 {
class C2103 {
class C2104 {
class C2105 {
class C2106 {
class C2107 {
class C2108 {
class C2109 {
class C2110 {
class C2111 {
class C2112 {
class C2113 {
class C2114 {
class C2115 {
class C2116 {
class C2117 {
class C2118 {
class C2119 {
class C2120 {
class C2121 {
class C2122 {
class C2123 {
class C2124 {
class C2125 {
class C2126 {
class C2127 {
class C2128 {
class C2129 {
class C2130 {
class C2131 {
class C2132 {
class C2133 {
class C2134 {
class C2135 {
class C2136 {
class C2137 {
class C2138 {
class C2139 {
class C2140 {
class C2141 {
class C2142 {
class C2143 {
class C2144 {
class C2145 {
class C2146 {
class C2147 {
class C2148 {
class C2149 {
class C2150 {
class C2151 {
class C2152 {
class C2153 {
class C2154 {
class C2155 {
class C2156 {
class C2157 {
class C2158 {
class C2159 {
class C2160 {
class C2161 {
class C2162 {
class C2163 {
class C2164 {
class C2165 {
class C2166 {
class C2167 {
class C2168 {
class C2169 {
class C2170 {
class C2171 {
class C2172 {
class C2173 {
class C2174 {
class C2175 {
class C2176 {
class C2177 {
class C2178 {
class C2179 {
class C2180 {
class C2181 {
class C2182 {
class C2183 {
class C2184 {
class C2185 {
class C2186 {
class C2187 {
class C2188 {
class C2189 {
class C2190 {
class C2191 {
class C2192 {
class C2193 {
class C2194 {
class C2195 {
class C2196 {
class C2197 {
class C2198 {
class C2199 {
class C2200 {
class C2201 {
class C2202 {
class C2203 {
class C2204 {
class C2205 {
class C2206 {
class C2207 {
class C2208 {
class C2209 {
class C2210 {
class C2211 {
class C2212 {
class C2213 {
class C2214 {
class C2215 {
class C2216 {
class C2217 {
class C2218 {
class C2219 {
class C2220 {
class C2221 {
class C2222 {
class C2223 {
class C2224 {
class C2225 {
class C2226 {
class C2227 {
class C2228 {
class C2229 {
class C2230 {
class C2231 {
class C2232 {
class C2233 {
class C2234 {
class C2235 {
class C2236 {
class C2237 {
class C2238 {
class C2239 {
class C2240 {
class C2241 {
class C2242 {
class C2243 {
class C2244 {
class C2245 {
class C2246 {
class C2247 {
class C2248 {
class C2249 {
class C2250 {
class C2251 {
class C2252 {
class C2253 {
class C2254 {
class C2255 {
class C2256 {
class C2257 {
class C2258 {
class C2259 {
class C2260 {
class C2261 {
class C2262 {
class C2263 {
class C2264 {
class C2265 {
class C2266 {
class C2267 {
class C2268 {
class C2269 {
class C2270 {
class C2271 {
class C2272 {
class C2273 {
class C2274 {
class C2275 {
class C2276 {
class C2277 {
class C2278 {
class C2279 {
class C2280 {
class C2281 {
class C2282 {
class C2283 {
class C2284 {
class C2285 {
class C2286 {
class C2287 {
class C2288 {
class C2289 {
class C2290 {
class C2291 {
class C2292 {
class C2293 {
class C2294 {
class C2295 {
class C2296 {
class C2297 {
class C2298 {
class C2299 {
class C2300 {
class C2301 {
class C2302 {
class C2303 {
class C2304 {
class C2305 {
class C2306 {
class C2307 {
class C2308 {
class C2309 {
class C2310 {
class C2311 {
class C2312 {
class C2313 {
class C2314 {
class C2315 {
class C2316 {
class C2317 {
class C2318 {
class C2319 {
class C2320 {
class C2321 {
class C2322 {
class C2323 {
class C2324 {
class C2325 {
class C2326 {
class C2327 {
class C2328 {
class C2329 {
class C2330 {
class C2331 {
class C2332 {
class C2333 {
class C2334 {
class C2335 {
class C2336 {
class C2337 {
class C2338 {
class C2339 {
class C2340 {
class C2341 {
class C2342 {
class C2343 {
class C2344 {
class C2345 {
class C2346 {
class C2347 {
class C2348 {
class C2349 {
class C2350 {
class C2351 {
class C2352 {
class C2353 {
class C2354 {
class C2355 {
class C2356 {
class C2357 {
class C2358 {
class C2359 {
class C2360 {
class C2361 {
class C2362 {
class C2363 {
class C2364 {
class C2365 {
class C2366 {
class C2367 {
class C2368 {
class C2369 {
class C2370 {
class C2371 {
class C2372 {
class C2373 {
class C2374 {
class C2375 {
class C2376 {
class C2377 {
class C2378 {
class C2379 {
class C2380 {
class C2381 {
class C2382 {
class C2383 {
class C2384 {
class C2385 {
class C2386 {
class C2387 {
class C2388 {
class C2389 {
class C2390 {
class C2391 {
class C2392 {
class C2393 {
class C2394 {
class C2395 {
class C2396 {
class C2397 {
class C2398 {
class C2399 {
class C2400 {
class C2401 {
class C2402 {
class C2403 {
class C2404 {
class C2405 {
class C2406 {
class C2407 {
class C2408 {
class C2409 {
class C2410 {
class C2411 {
class C2412 {
class C2413 {
class C2414 {
class C2415 {
class C2416 {
class C2417 {
class C2418 {
class C2419 {
class C2420 {
class C2421 {
class C2422 {
class C2423 {
class C2424 {
class C2425 {
class C2426 {
class C2427 {
class C2428 {
class C2429 {
class C2430 {
class C2431 {
class C2432 {
class C2433 {
class C2434 {
class C2435 {
class C2436 {
class C2437 {
class C2438 {
class C2439 {
class C2440 {
class C2441 {
class C2442 {
class C2443 {
class C2444 {
class C2445 {
class C2446 {
class C2447 {
class C2448 {
class C2449 {
class C2450 {
class C2451 {
class C2452 {
class C2453 {
class C2454 {
class C2455 {
class C2456 {
class C2457 {
class C2458 {
class C2459 {
class C2460 {
class C2461 {
class C2462 {
class C2463 {
class C2464 {
class C2465 {
class C2466 {
class C2467 {
class C2468 {
class C2469 {
class C2470 {
class C2471 {
class C2472 {
class C2473 {
class C2474 {
class C2475 {
class C2476 {
class C2477 {
class C2478 {
class C2479 {
class C2480 {
class C2481 {
class C2482 {
class C2483 {
class C2484 {
class C2485 {
class C2486 {
class C2487 {
class C2488 {
class C2489 {
class C2490 {
class C2491 {
class C2492 {
class C2493 {
class C2494 {
class C2495 {
class C2496 {
class C2497 {
class C2498 {
class C2499 {
class C2500 {
class C2501 {
class C2502 {
class C2503 {
class C2504 {
class C2505 {
class C2506 {
class C2507 {
class C2508 {
class C2509 {
class C2510 {
class C2511 {
class C2512 {
class C2513 {
class C2514 {
class C2515 {
class C2516 {
class C2517 {
class C2518 {
class C2519 {
class C2520 {
class C2521 {
class C2522 {
class C2523 {
class C2524 {
class C2525 {
class C2526 {
class C2527 {
class C2528 {
class C2529 {
class C2530 {
class C2531 {
class C2532 {
class C2533 {
class C2534 {
class C2535 {
class C2536 {
class C2537 {
class C2538 {
class C2539 {
class C2540 {
class C2541 {
class C2542 {
class C2543 {
class C2544 {
class C2545 {
class C2546 {
class C2547 {
class C2548 {
class C2549 {
class C2550 {
class C2551 {
class C2552 {
class C2553 {
class C2554 {
class C2555 {
class C2556 {
class C2557 {
class C2558 {
class C2559 {
class C2560 {
class C2561 {
class C2562 {
class C2563 {
class C2564 {
class C2565 {
class C2566 {
class C2567 {
class C2568 {
class C2569 {
class C2570 {
class C2571 {
class C2572 {
class C2573 {
class C2574 {
class C2575 {
class C2576 {
class C2577 {
class C2578 {
class C2579 {
class C2580 {
class C2581 {
class C2582 {
class C2583 {
class C2584 {
class C2585 {
class C2586 {
class C2587 {
class C2588 {
class C2589 {
class C2590 {
class C2591 {
class C2592 {
class C2593 {
class C2594 {
class C2595 {
class C2596 {
class C2597 {
class C2598 {
class C2599 {
class C2600 {
class C2601 {
class C2602 {
class C2603 {
class C2604 {
class C2605 {
class C2606 {
class C2607 {
class C2608 {
class C2609 {
class C2610 {
class C2611 {
class C2612 {
class C2613 {
class C2614 {
class C2615 {
class C2616 {
class C2617 {
class C2618 {
class C2619 {
class C2620 {
class C2621 {
class C2622 {
class C2623 {
class C2624 {
class C2625 {
class C2626 {
class C2627 {
class C2628 {
class C2629 {
class C2630 {
class C2631 {
class C2632 {
class C2633 {
class C2634 {
class C2635 {
class C2636 {
class C2637 {
class C2638 {
class C2639 {
class C2640 {
class C2641 {
class C2642 {
class C2643 {
class C2644 {
class C2645 {
class C2646 {
class C2647 {
class C2648 {
class C2649 {
class C2650 {
class C2651 {
class C2652 {
class C2653 {
class C2654 {
class C2655 {
class C2656 {
class C2657 {
class C2658 {
class C2659 {
class C2660 {
class C2661 {
class C2662 {
class C2663 {
class C2664 {
class C2665 {
class C2666 {
class C2667 {
class C2668 {
class C2669 {
class C2670 {
class C2671 {
class C2672 {
class C2673 {
class C2674 {
class C2675 {
class C2676 {
class C2677 {
class C2678 {
class C2679 {
class C2680 {
class C2681 {
class C2682 {
class C2683 {
class C2684 {
class C2685 {
class C2686 {
class C2687 {
class C2688 {
class C2689 {
class C2690 {
class C2691 {
class C2692 {
class C2693 {
class C2694 {
class C2695 {
class C2696 {
class C2697 {
class C2698 {
class C2699 {
class C2700 {
class C2701 {
class C2702 {
class C2703 {
class C2704 {
class C2705 {
class C2706 {
class C2707 {
class C2708 {
class C2709 {
class C2710 {
class C2711 {
class C2712 {
class C2713 {
class C2714 {
class C2715 {
class C2716 {
class C2717 {
class C2718 {
class C2719 {
class C2720 {
class C2721 {
class C2722 {
class C2723 {
class C2724 {
class C2725 {
class C2726 {
class C2727 {
class C2728 {
class C2729 {
class C2730 {
class C2731 {
class C2732 {
class C2733 {
class C2734 {
class C2735 {
class C2736 {
class C2737 {
class C2738 {
class C2739 {
class C2740 {
class C2741 {
class C2742 {
class C2743 {
class C2744 {
class C2745 {
class C2746 {
class C2747 {
class C2748 {
class C2749 {
class C2750 {
class C2751 {
class C2752 {
class C2753 {
class C2754 {
class C2755 {
class C2756 {
class C2757 {
class C2758 {
class C2759 {
class C2760 {
class C2761 {
class C2762 {
class C2763 {
class C2764 {
class C2765 {
class C2766 {
class C2767 {
class C2768 {
class C2769 {
class C2770 {
class C2771 {
class C2772 {
class C2773 {
class C2774 {
class C2775 {
class C2776 {
class C2777 {
class C2778 {
class C2779 {
class C2780 {
class C2781 {
class C2782 {
class C2783 {
class C2784 {
class C2785 {
class C2786 {
class C2787 {
class C2788 {
class C2789 {
class C2790 {
class C2791 {
class C2792 {
class C2793 {
class C2794 {
class C2795 {
class C2796 {
class C2797 {
class C2798 {
class C2799 {
class C2800 {
class C2801 {
class C2802 {
class C2803 {
class C2804 {
class C2805 {
class C2806 {
class C2807 {
class C2808 {
class C2809 {
class C2810 {
class C2811 {
class C2812 {
class C2813 {
class C2814 {
class C2815 {
class C2816 {
class C2817 {
class C2818 {
class C2819 {
class C2820 {
class C2821 {
class C2822 {
class C2823 {
class C2824 {
class C2825 {
class C2826 {
class C2827 {
class C2828 {
class C2829 {
class C2830 {
class C2831 {
class C2832 {
class C2833 {
class C2834 {
class C2835 {
class C2836 {
class C2837 {
class C2838 {
class C2839 {
class C2840 {
class C2841 {
class C2842 {
class C2843 {
class C2844 {
class C2845 {
class C2846 {
class C2847 {
class C2848 {
class C2849 {
class C2850 {
class C2851 {
class C2852 {
class C2853 {
class C2854 {
class C2855 {
class C2856 {
class C2857 {
class C2858 {
class C2859 {
class C2860 {
class C2861 {
class C2862 {
class C2863 {
class C2864 {
class C2865 {
class C2866 {
class C2867 {
class C2868 {
class C2869 {
class C2870 {
class C2871 {
class C2872 {
class C2873 {
class C2874 {
class C2875 {
class C2876 {
class C2877 {
class C2878 {
class C2879 {
class C2880 {
class C2881 {
class C2882 {
class C2883 {
class C2884 {
class C2885 {
class C2886 {
class C2887 {
class C2888 {
class C2889 {
class C2890 {
class C2891 {
class C2892 {
class C2893 {
class C2894 {
class C2895 {
class C2896 {
class C2897 {
class C2898 {
class C2899 {
class C2900 {
class C2901 {
class C2902 {
class C2903 {
class C2904 {
class C2905 {
class C2906 {
class C2907 {
class C2908 {
class C2909 {
class C2910 {
class C2911 {
class C2912 {
class C2913 {
class C2914 {
class C2915 {
class C2916 {
class C2917 {
class C2918 {
class C2919 {
class C2920 {
class C2921 {
class C2922 {
class C2923 {
class C2924 {
class C2925 {
class C2926 {
class C2927 {
class C2928 {
class C2929 {
class C2930 {
class C2931 {
class C2932 {
class C2933 {
class C2934 {
class C2935 {
class C2936 {
class C2937 {
class C2938 {
class C2939 {
class C2940 {
class C2941 {
class C2942 {
class C2943 {
class C2944 {
class C2945 {
class C2946 {
class C2947 {
class C2948 {
class C2949 {
class C2950 {
class C2951 {
class C2952 {
class C2953 {
class C2954 {
class C2955 {
class C2956 {
class C2957 {
class C2958 {
class C2959 {
class C2960 {
class C2961 {
class C2962 {
class C2963 {
class C2964 {
class C2965 {
class C2966 {
class C2967 {
class C2968 {
class C2969 {
class C2970 {
class C2971 {
class C2972 {
class C2973 {
class C2974 {
class C2975 {
class C2976 {
class C2977 {
class C2978 {
class C2979 {
class C2980 {
class C2981 {
class C2982 {
class C2983 {
class C2984 {
class C2985 {
class C2986 {
class C2987 {
class C2988 {
class C2989 {
class C2990 {
class C2991 {
class C2992 {
class C2993 {
class C2994 {
class C2995 {
class C2996 {
class C2997 {
class C2998 {
class C2999 {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
