// Charter's policy grammar. The authorization part is Cedar's policy language
// (version 4.5): every Cedar policy set parses here with the same structure.
// The parse tree is turned into Charter's AST by engine/core/src/syntax/; checks
// that Cedar makes after parsing (one relational operator per level, scope
// shapes, literal ranges, escapes) live there, so that they report precise
// diagnostics instead of generic syntax errors.
grammar Charter;

policySet : policy* EOF ;

// A .charter file: Cedar policies and scheduling declarations, in any order.
// Cedar text is read with `policySet`, so that it stays pure Cedar; the
// syntax layer reports a declaration in it as CH0800.
charterFile : ( policy | declaration )* EOF ;

// One expression alone, for tools that evaluate expressions (the REPL).
expression : expr EOF ;

policy : annotation* effect=(PERMIT | FORBID) '(' scope ')' condition* ';' ;

annotation : '@' anyIdent ( '(' STRING ')' )? ;

scope : principalScope ',' actionScope ',' resourceScope ','? ;

principalScope : PRINCIPAL scopeConstraint? ;
resourceScope : RESOURCE scopeConstraint? ;
scopeConstraint
    : IS path ( IN entityOrSlot )?     # isConstraint
    | IN entityOrSlot                  # inConstraint
    | EQ entityOrSlot                  # eqConstraint
    ;
entityOrSlot : entityRef | SLOT ;

actionScope : ACTION ( EQ entityRef | IN entityRef | IN entityList )? ;
entityList : '[' ( entityRef ( ',' entityRef )* ','? )? ']' ;

condition : kind=(WHEN | UNLESS) '{' expr? '}' ;

expr
    : IF expr THEN expr ELSE expr      # ifExpr
    | orExpr                           # plainExpr
    ;

orExpr : andExpr ( OR andExpr )* ;
andExpr : relation ( AND relation )* ;

// Cedar allows one relational operator per level; the AST builder reports a
// chain such as `a < b < c` as a diagnostic.
relation : addExpr relTail* ;
relTail
    : op=(EQ | NE | LT | LE | GT | GE | IN) addExpr   # relOp
    | HAS ( anyIdent ( '.' anyIdent )* | STRING )     # hasOp
    | LIKE STRING                                     # likeOp
    | IS path ( IN addExpr )?                         # isOp
    ;

addExpr : mulExpr ( op+=(PLUS | MINUS) mulExpr )* ;
mulExpr : unary ( op+=(STAR | SLASH | PERCENT) unary )* ;
unary : ( BANG+ | MINUS+ )? member ;

member : primary memberSuffix* ;
memberSuffix
    : '.' anyIdent '(' exprList? ')'   # methodCall
    | '.' anyIdent                     # attrAccess
    | '[' STRING ']'                   # indexAccess
    ;

primary
    : TRUE                             # trueLit
    | FALSE                            # falseLit
    | INT                              # intLit
    | STRING                           # stringLit
    | var=(PRINCIPAL | ACTION | RESOURCE | CONTEXT)   # varRef
    | entityRef                        # entityLit
    | path '(' exprList? ')'           # functionCall
    | SLOT                             # slotRef
    | '(' expr ')'                     # parens
    | '[' exprList? ']'                # setLit
    | '{' ( recordInit ( ',' recordInit )* ','? )? '}'   # recordLit
    | path                             # barePath
    ;

exprList : expr ( ',' expr )* ','? ;
recordInit : key=recordKey ':' expr ;
recordKey : anyIdent | STRING ;

entityRef : path '::' STRING ;

// Scheduling declarations (docs/scheduling.md, "The scheduling language").
// Every one has the shape `WORD NAME... ;`, `WORD NAME... : VALUE ... ;` or
// `WORD NAME... { ... }`, and so has every line inside a block. The words
// are identifiers, not reserved words, so that Cedar text may keep using
// them as names; engine/schedule/src/language/ gives each form its meaning and reports
// the words it does not know.
//
//   queue "team-a" {
//     cohort: "ml";
//     resources cpu, memory {
//       flavor "default" { cpu: 8 borrow 2; memory: 64Gi; }
//     }
//   }
declaration : declEntry ;
declEntry : head=declWord ( declWord ( ',' declWord )* )? declBody ;
declWord : IDENT | STRING ;
declBody
    : ':' declValue ( IDENT declValue )* ';'   # declSetting
    | '{' declEntry* '}'                       # declBlock
    | ';'                                      # declBare
    ;
declValue
    : quantity                                 # declNumber
    | STRING                                   # declString
    | TRUE                                     # declTrue
    | FALSE                                    # declFalse
    | entityRef                                # declEntity
    | path                                     # declWordValue
    | '[' ( declValue ( ',' declValue )* ','? )? ']'   # declList
    ;
// A number or Kubernetes quantity (`8`, `-5`, `1.5`, `500m`, `64Gi`, `1e3`),
// several tokens that the AST builder joins, checking that no space
// separates them.
quantity : MINUS? INT ( '.' INT )? IDENT? ;
path : ident ( '::' ident )* ;

// Identifiers that are not reserved words: these may name types and
// namespaces. The scope variables and effect words are not reserved in Cedar.
ident : IDENT | PERMIT | FORBID | WHEN | UNLESS | PRINCIPAL | ACTION | RESOURCE | CONTEXT ;
anyIdent : ident | TRUE | FALSE | IF | THEN | ELSE | IN | LIKE | HAS | IS ;

PERMIT : 'permit' ;
FORBID : 'forbid' ;
WHEN : 'when' ;
UNLESS : 'unless' ;
PRINCIPAL : 'principal' ;
ACTION : 'action' ;
RESOURCE : 'resource' ;
CONTEXT : 'context' ;
TRUE : 'true' ;
FALSE : 'false' ;
IF : 'if' ;
THEN : 'then' ;
ELSE : 'else' ;
IN : 'in' ;
HAS : 'has' ;
LIKE : 'like' ;
IS : 'is' ;

EQ : '==' ;
NE : '!=' ;
LE : '<=' ;
GE : '>=' ;
LT : '<' ;
GT : '>' ;
AND : '&&' ;
OR : '||' ;
BANG : '!' ;
PLUS : '+' ;
MINUS : '-' ;
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;

SLOT : '?' [a-zA-Z_] [a-zA-Z0-9_]* ;
IDENT : [a-zA-Z_] [a-zA-Z0-9_]* ;
INT : [0-9]+ ;
// Escapes are checked and decoded by the AST builder, with Cedar's rules.
STRING : '"' ( '\\' . | ~["\\] )* '"' ;

COMMENT : '//' ~[\r\n]* -> skip ;
WS : [ \t\r\n\f]+ -> skip ;

// Anything else becomes a token of its own so that the parser reports it
// with a position instead of the lexer dropping it.
UNTERMINATED_STRING : '"' ( '\\' . | ~["\\] )* ;
ERROR_CHAR : . ;
