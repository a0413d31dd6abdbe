@cap:graphql
Feature: GraphQL over HTTP
  The GraphQL endpoint takes a POST whose body is JSON carrying a "query", and optionally
  "variables", and answers application/json; the body may be laid out as any JSON may
  (spaces, tabs and line breaks between its parts). Any other method is refused and runs
  nothing (DataHub answers GET with 500, the other methods with 405; saying 405 for each is
  recommended). A body that is not JSON, or that has no query, is refused with 400 without
  echoing what was sent. The frontend answers GraphQL too. A call refused for want of a
  privilege is answered as DataHub does: HTTP 200 and a GraphQL error. A query may nest
  50 levels deep, DataHub's depth limit (GRAPHQL_QUERY_DEPTH_LIMIT), and one level more is
  refused; its fields may come to 2,000, DataHub's complexity limit
  (GRAPHQL_QUERY_COMPLEXITY_LIMIT), counted over the whole query (every root field, through
  fragments) but for the type names (__typename), and one more is refused; a question about
  the schema (introspection) may nest 20 levels deep, as the good-faith introspection check
  of DataHub's GraphQL engine (graphql-java) allows.
  Recommended beyond DataHub, from the GraphQL over HTTP draft and RFC 9110: saying in the
  Allow header that only POST is allowed; refusing a body not declared as JSON with 415;
  answering application/graphql-response+json to a client that asks for it. Recommended
  too, as DataHub's engine does: refusing a question about the schema nested deeper than 20.

  Background:
    Given Ann holds a personal access token

  @id:http-01 @must @smoke
  Scenario: A query sent by POST is answered
    When Ann asks who she is
    Then the answer names Ann as the signed-in user

  @id:http-02 @must @smoke
  Scenario: A mutation with variables sent by POST is carried out
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag
    Then the tag exists with its name and description

  @id:http-03 @must @core
  Scenario: A query is answered as application/json
    When Ann asks who she is, accepting application/json
    Then the answer comes as application/json
    And the answer names Ann as the signed-in user

  @id:http-04 @should @core
  Scenario: A query is answered as application/graphql-response+json to a client that asks for it
    When Ann asks who she is, accepting application/graphql-response+json
    Then the answer comes as application/graphql-response+json
    And the answer names Ann as the signed-in user

  @id:http-05 @must @core
  Scenario Outline: The frontend answers queries on its <endpoint> endpoint
    When Ann asks who she is through the frontend's <endpoint> endpoint
    Then the answer names Ann as the signed-in user

    Examples:
      | endpoint   |
      | GraphQL    |
      | v2 GraphQL |

  @id:http-06 @must @core
  Scenario Outline: A query sent by <method> is refused
    When Ann sends a query to the GraphQL endpoint by <method>
    Then the request is refused, not answered

    Examples:
      | method |
      | GET    |
      | PUT    |
      | PATCH  |
      | DELETE |

  @id:http-21 @should @core
  Scenario Outline: A query sent by <method> is refused as a method not allowed
    When Ann sends a query to the GraphQL endpoint by <method>
    Then the answer has status 405

    Examples:
      | method |
      | GET    |
      | PUT    |
      | PATCH  |
      | DELETE |

  @id:http-07 @should @core
  Scenario Outline: A refusal of <method> says that only POST is allowed
    When Ann sends a query to the GraphQL endpoint by <method>
    Then the answer says that only POST is allowed

    Examples:
      | method |
      | GET    |
      | PUT    |
      | PATCH  |
      | DELETE |

  @id:http-08 @must @core
  Scenario: A tag creation sent by GET does not happen
    Given Ann is granted CREATE_TAGS
    When Ann sends a tag creation to the GraphQL endpoint by GET
    Then the request is refused, not answered
    And the tag does not exist

  @id:http-09 @must @core
  Scenario: A body that is not JSON is refused without being echoed
    When Ann sends a GraphQL request whose body is not valid JSON
    Then the answer has status 400
    And the answer does not repeat the body that was sent

  @id:http-10 @must @core
  Scenario: A body without a query is refused without being echoed
    When Ann sends a GraphQL request whose body has no query
    Then the answer has status 400
    And the answer does not repeat the body that was sent

  @id:http-25 @must @core
  Scenario: A query whose body is laid out over several lines and indented with tabs is answered
    When Ann asks who she is in a body laid out over several lines and indented with tabs
    Then the answer names Ann as the signed-in user

  @id:http-16 @must @core
  Scenario: A query nested 50 levels deep is answered, as DataHub answers up to its depth limit of 50
    When Ann asks for her manager, her manager's manager and so on, in a query nested 50 levels deep
    Then the answer has data and no errors

  @id:http-18 @must @core
  Scenario: A query nested 51 levels deep is refused, as DataHub refuses past its depth limit of 50
    When Ann asks for her manager, her manager's manager and so on, in a query nested 51 levels deep
    Then the answer is a GraphQL error, without data

  @id:http-19 @must @core
  Scenario: A question about the schema nested 20 levels deep is answered, as DataHub answers introspection up to 20
    When Ann asks for a type nested 20 levels deep
    Then the answer has data and no errors

  @id:http-17 @must @core
  Scenario: A query of 1,500 fields is answered, as DataHub answers a complexity up to 2,000
    When Ann asks for 1500 fields in one query
    Then the answer has data and no errors

  @id:http-22 @must @core
  Scenario Outline: A query of 2,000 fields <how> is answered, as DataHub answers a complexity up to 2,000
    When Ann asks for 2000 fields <how>
    Then the answer holds every field asked for, with no errors

    Examples:
      | how                                |
      | as aliases of one root field       |
      | over several different root fields |
      | through fragments                  |

  @id:http-23 @must @core
  Scenario Outline: A query of 2,001 fields <how> is refused, as DataHub refuses past its complexity limit of 2,000
    When Ann asks for 2001 fields <how>
    Then the answer is a GraphQL error saying the query's complexity is 2001, past the limit of 2000, without data

    Examples:
      | how                                |
      | as aliases of one root field       |
      | over several different root fields |
      | through fragments                  |

  @id:http-24 @must @core
  Scenario: A query of 2,000 fields that also asks for type names 1,000 times is answered, as DataHub counts no type name
    When Ann asks for 2000 fields and 1000 type names in one query
    Then the answer holds every field asked for, with no errors

  @id:http-15 @should @core
  Scenario: A body with a second JSON object after the first is refused without being echoed
    When Ann sends a GraphQL request whose body has a second JSON object after the first
    Then the answer has status 400
    And the answer does not repeat the body that was sent

  @id:http-11 @should @core
  Scenario: A body that is not declared as JSON is refused
    When Ann sends a GraphQL query declared as plain text
    Then the answer has status 415

  @id:http-12 @must @core
  Scenario: A call refused for want of a privilege is answered as a GraphQL error
    When Ann creates a tag
    Then the answer has status 200
    And the answer is DataHub's "unauthorized" GraphQL error
    And the tag does not exist

  @id:http-13 @must @core
  Scenario: The schema can be introspected
    When Ann asks the GraphQL endpoint to describe its schema
    Then the answer describes a schema whose queries include me and tag

  @id:http-14 @must @core
  Scenario: A question about one type of the schema, with variables, is answered
    When Ann asks the GraphQL endpoint about the type Tag, naming it in a variable
    Then the answer names the type Tag, with no errors

  @id:http-20 @should @core
  Scenario: A question about the schema nested 21 levels deep is refused
    When Ann asks for a type nested 21 levels deep
    Then the answer is a GraphQL error, without data
